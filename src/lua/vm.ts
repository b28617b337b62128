/**
 * A sandboxed Lua 5.4 state (wasmoon) for adapters and Lua plugins. What is safe and how the time limit
 * works is explained in prelude.ts; this class owns the state, the clock the limit reads, the HTTP policy,
 * the library sources each script may import, and the translation of Lua failures into JS errors that
 * name the script.
 */
import { type LuaEngine, LuaFactory } from "wasmoon";
import { JSON_LUA } from "./json-source.js";
import { PRELUDE_LUA } from "./prelude.js";
import { httpSync } from "./sync-http.js";

export type LuaLogLevel = "debug" | "info" | "warn" | "error";

export interface LuaVMOptions {
  /** Wall-clock limit of one loadScript/call, in ms. Default 2000. */
  timeoutMs?: number;
  /** Heap limit of the state; allocations beyond it fail with "not enough memory". Default 64 MiB. */
  memoryLimitBytes?: number;
  /** What the scripts are, for messages: "adapter" gives "lua: adapter openai exceeded 2000 ms". */
  kind?: string;
  /** Receives `log(level, msg)` and `print(...)` from scripts. */
  log?: (level: LuaLogLevel, script: string, message: string) => void;
  /**
   * `host[:port]` values (as in `new URL(u).host`) that http_get/http_post may reach; every other host is
   * refused. Default: none.
   */
  httpAllowedHosts?: readonly string[];
  /**
   * The most one loadScript/call may spend waiting on HTTP, all its requests together, in ms. Default 10000.
   * The wait blocks the JS thread, hence a budget per call rather than per request.
   */
  httpTimeoutMs?: number;
  /** The libraries scripts of this VM may import(), name → Lua source, unless loadScript says otherwise. */
  libraries?: Readonly<Record<string, string>>;
}

export interface CallLimits {
  timeoutMs?: number;
}

export interface LoadOptions extends CallLimits {
  /**
   * The name the script goes by in messages, log lines and HTTP checks, when several instances of one
   * script are loaded under different names. Default: the name it is loaded under.
   */
  label?: string;
  /** Extra globals of the script's environment (JSON values). */
  globals?: Record<string, unknown>;
  /** The libraries the script may import(), name → Lua source. Default: the VM's (none unless given). */
  libraries?: Readonly<Record<string, string>>;
}

/**
 * A failure inside Lua. The message reads "lua: <kind> <script>: <detail>"; `detail` alone suits callers
 * that name the script themselves. `timedOut` tells a runaway script from an ordinary error.
 */
export class LuaError extends Error {
  constructor(
    readonly kind: string,
    readonly script: string,
    readonly detail: string,
    readonly timedOut = false,
  ) {
    super(timedOut ? `lua: ${kind} ${script} ${detail}` : `lua: ${kind} ${script}: ${detail}`);
    this.name = "LuaError";
  }
}

interface Runner {
  load(name: string, source: string, label?: string, globals?: string): unknown;
  call(name: string, fn: string, ...args: unknown[]): unknown;
  unload(name: string): void;
}

const LOG_LEVELS = new Set<string>(["debug", "info", "warn", "error"]);
const HTTP_MAX_BYTES = 1024 * 1024;

// Compiling the wasm module is the slow part (~100 ms); every state shares one instance.
let factory: LuaFactory | undefined;

export class LuaVM {
  private readonly runner: Runner;
  private readonly timeoutMs: number;
  private readonly kind: string;
  private readonly httpAllowedHosts: Set<string>;
  private readonly httpTimeoutMs: number;
  private readonly labels = new Map<string, string>();
  private readonly libraries = new Map<string, ReadonlyMap<string, string>>();
  private readonly defaultLibraries: Readonly<Record<string, string>>;
  private httpSpentMs = 0;
  private deadline = Number.POSITIVE_INFINITY;
  private expired = false;
  private busy = false;
  private closed = false;

  private constructor(
    private readonly engine: LuaEngine,
    opts: LuaVMOptions,
  ) {
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.kind = opts.kind ?? "script";
    this.httpAllowedHosts = new Set((opts.httpAllowedHosts ?? []).map((h) => h.toLowerCase()));
    this.httpTimeoutMs = opts.httpTimeoutMs ?? 10_000;
    this.defaultLibraries = opts.libraries ?? {};
    const log = opts.log ?? (() => {});
    engine.global.setMemoryMax(opts.memoryLimitBytes ?? 64 * 1024 * 1024);
    engine.global.set("__ha_expired", () => this.checkClock());
    engine.global.set("__ha_log", (script: string, level: string, message: string) => {
      log(LOG_LEVELS.has(level) ? (level as LuaLogLevel) : "info", script, message);
    });
    engine.global.set("__ha_http", (script: string, method: string, url: string, body: unknown, headers: string) =>
      JSON.stringify(this.http(script, method === "POST" ? "POST" : "GET", url, body, headers)),
    );
    engine.global.set("__ha_library", (script: string, lib: string) => this.libraries.get(script)?.get(lib));
    engine.global.set("__ha_library_names", (script: string) =>
      [...(this.libraries.get(script)?.keys() ?? [])].sort().join(", "),
    );
    engine.global.set("__ha_json_source", JSON_LUA);
    this.runner = engine.doStringSync(PRELUDE_LUA) as Runner;
  }

  static async create(opts: LuaVMOptions = {}): Promise<LuaVM> {
    factory ??= new LuaFactory();
    return new LuaVM(
      await factory.createEngine({ enableProxy: false, injectObjects: false, traceAllocations: true }),
      opts,
    );
  }

  /** Runs a script's chunk in its own environment and returns what the chunk returns (tables become objects). */
  loadScript(name: string, source: string, opts?: LoadOptions): unknown {
    const label = opts?.label ?? name;
    this.labels.set(name, label);
    const libraries = opts?.libraries ?? this.defaultLibraries;
    this.libraries.set(name, new Map(Object.entries(libraries)));
    const globals = opts?.globals && JSON.stringify(opts.globals);
    return this.guard(name, opts, () => this.runner.load(name, source, label, globals));
  }

  /** Calls `fn` of a loaded script: a field of the table the chunk returned, else a global it defined. */
  call(script: string, fn: string, args: readonly unknown[] = [], limits?: CallLimits): unknown {
    return this.guard(script, limits, () => this.runner.call(script, fn, ...args));
  }

  unloadScript(name: string): void {
    if (!this.closed) this.runner.unload(name);
    this.labels.delete(name);
    this.libraries.delete(name);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.engine.global.close();
  }

  private checkClock(): boolean {
    if (performance.now() > this.deadline) this.expired = true;
    return this.expired;
  }

  /**
   * One http_get/http_post. The wait does not count against the Lua time limit (that limit is there to stop
   * runaway loops, and a slow server is not one): the deadline moves on by the time waited. What may be
   * waited is bounded by the per-call HTTP budget instead.
   */
  private http(script: string, method: "GET" | "POST", url: string, body: unknown, headers: string) {
    const fn = method === "GET" ? "http_get" : "http_post";
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { error: `${fn}: invalid URL ${JSON.stringify(url)}` };
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      return { error: `${fn}: only http and https URLs can be fetched, not ${target.protocol}` };
    }
    if (!this.httpAllowedHosts.has(target.host.toLowerCase())) {
      const allowed = [...this.httpAllowedHosts].join(", ") || "none";
      return { error: `${fn}: host ${target.host} is not allowed for ${this.kind} ${script} (allowed: ${allowed})` };
    }
    const left = this.httpTimeoutMs - this.httpSpentMs;
    if (left <= 0) return { error: `${fn}: the ${this.httpTimeoutMs} ms HTTP budget of this call is used up` };
    const started = performance.now();
    const reply = httpSync({
      method,
      url,
      headers: JSON.parse(headers) as Record<string, string>,
      body: typeof body === "string" ? body : undefined,
      timeoutMs: left,
      maxBytes: HTTP_MAX_BYTES,
    });
    const waited = performance.now() - started;
    this.httpSpentMs += waited;
    this.deadline += waited;
    if (!reply.ok) return { error: `${fn} ${target.origin}${target.pathname}: ${reply.error}` };
    return { status: reply.status, headers: reply.headers, body: reply.body };
  }

  private guard<T>(name: string, limits: CallLimits | undefined, run: () => T): T {
    const script = this.labels.get(name) ?? name;
    if (this.closed) throw new LuaError(this.kind, script, "the Lua VM is closed");
    // A log callback that calls back into the VM would share (and reset) the running call's deadline.
    if (this.busy) throw new LuaError(this.kind, script, "re-entrant call into a busy Lua VM");
    const ms = limits?.timeoutMs ?? this.timeoutMs;
    this.busy = true;
    this.expired = false;
    this.httpSpentMs = 0;
    this.deadline = performance.now() + ms;
    try {
      return run();
    } catch (err) {
      if (this.expired) throw new LuaError(this.kind, script, `exceeded ${ms} ms`, true);
      throw new LuaError(this.kind, script, luaMessage(err));
    } finally {
      this.busy = false;
      this.deadline = Number.POSITIVE_INFINITY;
    }
  }
}

// wasmoon appends the traceback of its own call thread, which only ever shows the host call.
function luaMessage(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\s*stack traceback:[\s\S]*$/, "");
}
