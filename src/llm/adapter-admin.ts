/**
 * The adapters API (sdk.adapters): the scripts in `<data>/adapters/` listed, read, saved and removed. A
 * script is only saved after it has been loaded in the Lua sandbox — in a worker of its own, within a time
 * limit, with the libraries it may import — and has shown it is an adapter (AdapterScript.load's checks), so
 * a broken or hostile script never reaches a source. The write is atomic and private (0600): sources that
 * use the adapter notice the new file before their next request (ReloadingProvider) and switch to it.
 */
import { readFileSync, rmSync, statSync } from "node:fs";
import type { AdapterInfo, AdaptersAPI } from "@homeagent/sdk";
import { LuaError, LuaVM } from "../lua/vm.js";
import { formatBytes } from "../util/bytes.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { writePrivateFile } from "../util/private-file.js";
import { AdapterScript } from "./adapter-script.js";
import {
  adapterFile,
  adaptersDir,
  bundledAdapterSource,
  isAdapterName,
  loadAdapterLibraries,
  luaNames,
} from "./adapters.js";

export const MAX_ADAPTER_BYTES = 256 * 1024;
/** Adapters in the folder: a new one beyond this is refused. */
export const MAX_ADAPTERS = 256;
/** How long a script may run while it loads; a real adapter only defines functions and takes milliseconds. */
export const ADAPTER_LOAD_TIMEOUT_MS = 2000;
/** Saves waiting for their check; each check starts a Lua worker, so they run one at a time. */
const MAX_WAITING_SAVES = 8;

export interface AdapterAdminOptions {
  dataDir: string;
  /** The LLM sources as configured now, each with the adapter it names. */
  sources: () => ReadonlyArray<{ name: string; adapter: string }>;
  /** Told after a script was saved: a source that could not be built without it can be built now. */
  onSaved?: (name: string) => void;
  loadTimeoutMs?: number;
}

export class AdapterAdmin implements AdaptersAPI {
  private queue: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  constructor(private readonly opts: AdapterAdminOptions) {}

  list(): AdapterInfo[] {
    const infos: AdapterInfo[] = [];
    for (const name of luaNames(adaptersDir(this.opts.dataDir))) {
      const found = isAdapterName(name) ? this.read(name) : undefined;
      if (found) infos.push(found.info);
    }
    return infos;
  }

  get(name: string): { info: AdapterInfo; code: string } | null {
    if (typeof name !== "string" || !isAdapterName(name)) return null;
    return this.read(name) ?? null;
  }

  put(name: string, code: string): Promise<AdapterInfo> {
    let file: string;
    try {
      file = adapterFile(this.opts.dataDir, String(name));
      checkCode(code);
      this.checkRoom(name);
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.waiting >= MAX_WAITING_SAVES) {
      return Promise.reject(
        new HomeAgentError({
          code: "adapter_busy",
          message: `${MAX_WAITING_SAVES} adapters are already waiting to be checked; try again in a moment`,
        }),
      );
    }
    this.waiting++;
    const saved = this.queue.then(async () => {
      this.waiting--;
      await this.check(name, code);
      writePrivateFile(file, code);
      this.opts.onSaved?.(name);
      const info = this.read(name)?.info;
      if (!info) throw new HomeAgentError({ code: "adapter_io", message: `adapter ${name} vanished after saving` });
      return info;
    });
    this.queue = saved.catch(() => {});
    return saved;
  }

  delete(name: string): boolean {
    const file = adapterFile(this.opts.dataDir, String(name));
    if (bundledAdapterSource(name) !== undefined) {
      throw new HomeAgentError({
        code: "adapter_bundled",
        message: `adapter ${name} is shipped with HomeAgent and cannot be removed (it would come back at the next start); edit it instead`,
      });
    }
    const users = this.usedBy(name);
    if (users.length > 0) {
      throw new HomeAgentError({
        code: "adapter_in_use",
        message: `adapter ${name} is used by LLM source ${users.join(", ")}; give ${users.length > 1 ? "those sources" : "that source"} another adapter first (core.llm.sources.<name>.adapter)`,
      });
    }
    if (!isFile(file)) return false;
    rmSync(file, { force: true });
    return true;
  }

  private read(name: string): { info: AdapterInfo; code: string } | undefined {
    const file = adapterFile(this.opts.dataDir, name);
    let code: string;
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(file);
      if (!stat.isFile()) return undefined;
      code = readFileSync(file, "utf8");
    } catch {
      return undefined;
    }
    const info: AdapterInfo = {
      name,
      size: Buffer.byteLength(code),
      updatedAt: Math.round(Number(stat.mtimeMs)),
      bundled: bundledAdapterSource(name) === code,
      usedBy: this.usedBy(name),
    };
    return { info, code };
  }

  private usedBy(name: string): string[] {
    return this.opts
      .sources()
      .filter((s) => s.adapter === name)
      .map((s) => s.name)
      .sort();
  }

  private checkRoom(name: string): void {
    const dir = adaptersDir(this.opts.dataDir);
    const names = luaNames(dir);
    if (names.includes(name) || names.length < MAX_ADAPTERS) return;
    throw new HomeAgentError({
      code: "adapter_limit",
      message: `there are already ${names.length} adapters in ${dir} (at most ${MAX_ADAPTERS}); remove unused ones first`,
    });
  }

  /** Loads the script in a sandbox of its own, as a source would, and refuses it unless it is an adapter. */
  private async check(name: string, code: string): Promise<void> {
    const timeoutMs = this.opts.loadTimeoutMs ?? ADAPTER_LOAD_TIMEOUT_MS;
    const vm = await LuaVM.create({ kind: "adapter", timeoutMs });
    try {
      await AdapterScript.load(vm, name, code, {
        timeoutMs,
        globals: { source: { name: "adapter-check", base_url: "", model: "" } },
        libraries: loadAdapterLibraries(this.opts.dataDir),
      });
    } catch (err) {
      // A Lua error already names the script and line; a timeout's message says whose limit it was.
      const reason = err instanceof LuaError && !err.timedOut ? err.detail : errorMessage(err);
      throw new HomeAgentError({
        code: "adapter_invalid",
        message: `adapter ${name} was not saved: ${reason}; fix the script and save it again`,
        cause: err,
      });
    } finally {
      await vm.close();
    }
  }
}

function checkCode(code: unknown): asserts code is string {
  if (typeof code !== "string") {
    throw new HomeAgentError({ code: "adapter_invalid", message: "an adapter's code must be a string of Lua" });
  }
  const bytes = Buffer.byteLength(code);
  if (bytes > MAX_ADAPTER_BYTES) {
    throw new HomeAgentError({
      code: "too_large",
      message: `the script is ${formatBytes(bytes)}; adapters may be at most ${formatBytes(MAX_ADAPTER_BYTES)}`,
    });
  }
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}
