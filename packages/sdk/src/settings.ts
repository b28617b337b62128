/** Settings as plugins see them: their own (`sdk.settings`) and, with `settings_cross`, the daemon's. */

/**
 * The plugin's own settings. `key` is relative: `settings.get("token")` of plugin `my-plugin` reads the
 * config key `plugin.my-plugin.token`, the same entry `/settings plugin.my-plugin.` lists and the web UI
 * edits: one namespace, one store (the daemon's config table). Keys are letters, digits, "_" and "-", in
 * dot-separated segments, at most 128 characters.
 *
 * A key the plugin declares with `define()` is validated on every write (by anyone) and read as its default
 * while unset or when the stored value is invalid. Only declared keys can be changed from outside the
 * plugin (`/settings set`, the web UI); the plugin itself may also keep undeclared keys (at most 1024 keys,
 * 64 KiB per value). Undeclared values are listed as they are: declare a secret with type `password` so
 * every list shows at most its last four characters.
 */
export interface SettingsAPI {
  get(key: string): string | undefined;
  /** Throws (with the reason) when the value is invalid for the key's definition or over a limit. */
  set(key: string, value: string): void;
  /** Declared and stored keys (relative) with their effective values. */
  list(): Record<string, string>;
  /** Declares settings (relative keys); call it in start() so users can see and change them. */
  define(defs: SettingDef[]): void;
}

/**
 * `float` and `url` (http/https only) are validated like `int` and `string` plus their own rules; `json` must
 * parse as JSON and match the definition's `schema` (when it has one).
 */
export type ConfigType =
  | "string"
  | "int"
  | "float"
  | "bool"
  | "duration"
  | "url"
  | "password"
  | "select"
  | "text"
  | "json";

/** A setting's definition: what the settings page shows and what every write is validated against. */
export interface SettingDef {
  key: string;
  default: string;
  description: string;
  type: ConfigType;
  /** Allowed values of a `select`. */
  options?: string[];
  /**
   * Bounds of an `int`/`float`, or of a `duration` in milliseconds. Without them: int 0 to 2^31−1, float
   * ±1e9, duration 0 to 2^31−1 ms (the longest timer).
   */
  min?: number;
  max?: number;
  /** Longest value in characters; defaults by type (text 64 KiB, others at most 4 KiB). */
  maxLength?: number;
  /**
   * Where the dashboard lists the setting: one of its groups ("models", "agent", "memory", "access",
   * "system"), or by default a card of the plugin's own.
   */
  category?: string;
  /** Kept out of settings lists, e.g. internal bookkeeping. */
  hidden?: boolean;
  /** The setting's name as a person says it ("Context window"); the dashboard shows the key small beside it. */
  displayName?: string;
  /**
   * `displayName` and `description` in other languages than English, which the dashboard shows in its
   * Chinese UI (English where a translation is missing).
   */
  translations?: { zh?: { displayName: string; description: string } };
  /** What an `int` or `float` counts, shown beside the value: e.g. "bytes", "MiB", "tokens". */
  unit?: string;
  placeholder?: string;
  /**
   * The agent may change it (cfgmgr's config_set, a tool call of the model), and so may a plugin that is
   * not built in (with capability `settings_cross`). Default false: only the user changes it, in Settings or
   * with /settings. Never for what widens permissions, moves data or changes who the agent is; refused on a
   * secret (a `password`, or a key named like one).
   */
  agentWritable?: boolean;
  /**
   * A regular expression (JavaScript syntax, `u` flag) the whole value must match; "" (not set) is always
   * allowed. A refusal quotes `placeholder` as the example, so set both.
   */
  pattern?: string;
  /**
   * A `json` setting's JSON Schema: every write must match it, or it is refused with the path that does
   * not fit (e.g. `/everything/command must be string`).
   */
  schema?: Record<string, unknown>;
  /**
   * A `json` setting's credentials: the string values inside an object held by a property of one of these
   * names (e.g. `["env", "headers"]`) are masked wherever the value is listed, and a masked one written back
   * keeps the stored secret (replace-only).
   */
  secretFields?: string[];
}

export interface ConfigEntry {
  key: string;
  /** Masked when the key is a password. */
  value: string;
  type: ConfigType;
  description: string;
  category: string;
  /** The environment variable this value comes from: it wins over any stored value. */
  env?: string;
}

/**
 * A definition as a settings form needs it. A key with a `*` segment is a template (e.g.
 * `core.llm.sources.*.base_url`): the `*` stands for a name the user picks.
 */
export interface ConfigDefInfo extends SettingDef {
  /** Shown masked (at most the last four characters) everywhere. */
  secret: boolean;
  /** Set by this environment variable, which wins over any stored value. */
  env?: string;
}

/**
 * What `setMany` answers: each refused key with the reason in English, and (`reasons`) for a refusal by the
 * value's rules its id and details, e.g. `{reason: "out_of_range", params: {min: "1", max: "1000"}}`, so a
 * client can say it in its own language. Ids: too_long (max), control_characters, not_integer, not_number,
 * out_of_range (min, max), not_boolean, bad_duration, not_url, bad_scheme, no_host, url_credentials,
 * not_option (options), bad_form (example), masked_secret, env_override (variable), rule (a rule of its own;
 * only the English says which).
 */
export interface SetManyResult {
  refused: Record<string, string>;
  reasons?: Record<string, { reason: string; params?: Record<string, string> }>;
}

/** Daemon-wide configuration, every namespace: capability `settings_cross` (cli, webui). */
export interface ConfigAPI {
  list(prefix?: string): ConfigEntry[];
  /**
   * Validated exactly as `/settings set` is; throws with the reason when refused. "" deletes a stored
   * value (the default applies again).
   */
  set(key: string, value: string): void;
  /**
   * Several keys at once, all or none (a settings form): each change is checked as `set` checks it, and
   * only when every one passes are they all stored. Answers each refused key with the reason; `refused` is
   * empty when everything was stored. At most 64 keys per call (more throws, code "config_limit").
   */
  setMany(changes: Record<string, string>): SetManyResult;
  /** The definitions (templates included) under `prefix`, not hidden ones, in the order they were defined. */
  defs(prefix?: string): ConfigDefInfo[];
}
