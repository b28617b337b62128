/**
 * The Lua provider adapters in `<data>/adapters/` (capability `llm_admin`): the scripts that translate
 * between HomeAgent and each LLM wire format. Editing one changes how the daemon talks to a provider, so
 * a new or changed script is loaded in the sandbox and checked before it is saved.
 */

export interface AdapterInfo {
  /** The file name without ".lua". */
  name: string;
  /** Bytes of the script. */
  size: number;
  /** Unix milliseconds. */
  updatedAt: number;
  /** Shipped with HomeAgent (and not yet edited by the user). */
  bundled: boolean;
  /** LLM sources whose `adapter` is this one. */
  usedBy: string[];
}

export interface AdaptersAPI {
  list(): AdapterInfo[];
  /** null when there is no such adapter. */
  get(name: string): { info: AdapterInfo; code: string } | null;
  /**
   * Loads `code` in the Lua sandbox and saves it as `<name>.lua` only when it loads and defines what an
   * adapter must; otherwise rejects with the reason (code `adapter_invalid`). Sources using it reload.
   * Names are letters, digits, "_" and "-"; scripts at most 256 KiB.
   */
  put(name: string, code: string): Promise<AdapterInfo>;
  /** Removes the file; refused (code `adapter_in_use`) while a source uses it. True when there was one. */
  delete(name: string): boolean;
}
