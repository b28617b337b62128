/**
 * A sandboxed Lua 5.4 state (wasmoon) for adapters and Lua plugins. What is safe and how the time limit
 * works is explained in prelude.ts; this class owns the state, the clock the limit reads, and the
 * translation of Lua failures into JS errors that name the script.
 */
import { type LuaEngine, LuaFactory } from "wasmoon";
import { JSON_LUA } from "./json-source.js";
import { PRELUDE_LUA } from "./prelude.js";

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
}

export interface CallLimits {
  timeoutMs?: number;
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
  load(name: string, source: string): unknown;
  call(name: string, fn: string, ...args: unknown[]): unknown;
  unload(name: string): void;
}

const LOG_LEVELS = new Set<string>(["debug", "info", "warn", "error"]);

// Compiling the wasm module is the slow part (~100 ms); every state shares one instance.
let factory: LuaFactory | undefined;

export class LuaVM {
  private readonly runner: Runner;
  private readonly timeoutMs: number;
  private readonly kind: string;
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
    const log = opts.log ?? (() => {});
    engine.global.setMemoryMax(opts.memoryLimitBytes ?? 64 * 1024 * 1024);
    engine.global.set("__ha_expired", () => this.checkClock());
    engine.global.set("__ha_log", (script: string, level: string, message: string) => {
      log(LOG_LEVELS.has(level) ? (level as LuaLogLevel) : "info", script, message);
    });
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
  loadScript(name: string, source: string, limits?: CallLimits): unknown {
    return this.guard(name, limits, () => this.runner.load(name, source));
  }

  /** Calls `fn` of a loaded script: a field of the table the chunk returned, else a global it defined. */
  call(script: string, fn: string, args: readonly unknown[] = [], limits?: CallLimits): unknown {
    return this.guard(script, limits, () => this.runner.call(script, fn, ...args));
  }

  unloadScript(name: string): void {
    if (!this.closed) this.runner.unload(name);
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

  private guard<T>(script: string, limits: CallLimits | undefined, run: () => T): T {
    if (this.closed) throw new LuaError(this.kind, script, "the Lua VM is closed");
    // A log callback that calls back into the VM would share (and reset) the running call's deadline.
    if (this.busy) throw new LuaError(this.kind, script, "re-entrant call into a busy Lua VM");
    const ms = limits?.timeoutMs ?? this.timeoutMs;
    this.busy = true;
    this.expired = false;
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
