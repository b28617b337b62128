/**
 * A sandboxed Lua 5.4 state (wasmoon) for adapters and Lua plugins, run in a worker thread so that no
 * script can stall the daemon. What is safe inside the state is explained in prelude.ts, how the worker is
 * bounded and stopped in worker-host.ts. This class is what callers see: an async API whose calls are
 * served one at a time, each with its own limit counted from when it starts; a worker that had to be
 * terminated (or died) is replaced, and the scripts that were loaded are loaded into the new one, with
 * their globals and libraries, so that later calls keep working.
 */
import { errorMessage } from "../util/errors.js";
import { DEFAULT_LOG_RATE, LogLimiter, type LogRate } from "./log-limit.js";
import { LuaError } from "./lua-error.js";
import { MAX_VALUE_DEPTH, nestedDeeperThan } from "./value-limits.js";
import { type LuaCall, type LuaLogLevel, LuaWorker, type LuaWorkerOptions, type WorkerRequest } from "./worker-host.js";

export { LuaError } from "./lua-error.js";
export type { LuaCall, LuaLogLevel } from "./worker-host.js";

export interface LuaVMOptions {
  /** Limit of one loadScript/call, in ms of Lua time (HTTP waits excluded). Default 2000. */
  timeoutMs?: number;
  /** Heap limit of the state; allocations beyond it fail with "not enough memory". Default 64 MiB. */
  memoryLimitBytes?: number;
  /** What the scripts are, for messages: "adapter" gives "lua: adapter openai exceeded 2000 ms". */
  kind?: string;
  /** Receives `log(level, msg)` and `print(...)` from scripts. */
  log?: (level: LuaLogLevel, script: string, message: string) => void;
  /** How much the scripts of this VM may log over time (see log-limit.ts). Default DEFAULT_LOG_RATE. */
  logRate?: Partial<LogRate>;
  /**
   * `host[:port]` values (as in `new URL(u).host`) that http_get/http_post may reach; every other host is
   * refused. Default: none.
   */
  httpAllowedHosts?: readonly string[];
  /** The most one loadScript/call may spend waiting on HTTP, all its requests together, in ms. Default 10000. */
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

type LoadRequest = Extract<WorkerRequest, { op: "load" }>;

/** Calls beyond this many waiting for one VM are refused rather than queued without end. */
export const MAX_WAITING_CALLS = 256;

export class LuaVM {
  private readonly kind: string;
  private readonly timeoutMs: number;
  private readonly defaultLibraries: Readonly<Record<string, string>>;
  private readonly workerOptions: LuaWorkerOptions;
  private readonly logLimiter: LogLimiter;
  /** Scripts to load again into a replacement worker, in load order. */
  private readonly loaded = new Map<string, LoadRequest>();
  /** Scripts that failed to load again into a replacement worker, with why. */
  private readonly lost = new Map<string, LuaError>();
  private readonly labels = new Map<string, string>();
  private worker?: LuaWorker;
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;
  private closed = false;

  private constructor(opts: LuaVMOptions) {
    this.kind = opts.kind ?? "script";
    this.timeoutMs = opts.timeoutMs ?? 2000;
    this.defaultLibraries = opts.libraries ?? {};
    const log = opts.log ?? (() => {});
    this.logLimiter = new LogLimiter({ ...DEFAULT_LOG_RATE, ...opts.logRate }, log);
    this.workerOptions = {
      kind: this.kind,
      memoryLimitBytes: opts.memoryLimitBytes ?? 64 * 1024 * 1024,
      httpAllowedHosts: opts.httpAllowedHosts ?? [],
      httpTimeoutMs: opts.httpTimeoutMs ?? 10_000,
      log: (level, script, message) => this.logLimiter.write(level, script, message),
      onExit: () => this.replace(),
    };
  }

  /** Starts the worker and its Lua state. */
  static async create(opts: LuaVMOptions = {}): Promise<LuaVM> {
    const vm = new LuaVM(opts);
    await vm.enqueue("", async () => {});
    return vm;
  }

  /** Runs a script's chunk in its own environment and returns what the chunk returns (tables become objects). */
  loadScript(name: string, source: string, opts?: LoadOptions): Promise<unknown> {
    const label = opts?.label ?? name;
    this.labels.set(name, label);
    const req: LoadRequest = {
      op: "load",
      name,
      source,
      label,
      globals: opts?.globals && JSON.stringify(opts.globals),
      libraries: opts?.libraries ?? this.defaultLibraries,
      timeoutMs: opts?.timeoutMs ?? this.timeoutMs,
    };
    return this.enqueue(label, async (worker) => {
      const value = await worker.run(req, label);
      this.loaded.set(name, req);
      this.lost.delete(name);
      return value;
    });
  }

  /** Calls `fn` of a loaded script: a field of the table the chunk returned, else a global it defined. */
  call(script: string, fn: string, args: readonly unknown[] = [], limits?: CallLimits): Promise<unknown> {
    const label = this.labels.get(script) ?? script;
    const timeoutMs = limits?.timeoutMs ?? this.timeoutMs;
    const refused = this.checkArgs(label, [args]);
    if (refused) return Promise.reject(refused);
    return this.enqueue(label, async (worker) => {
      this.checkNotLost(script, label);
      return worker.run({ op: "call", name: script, fn, args: [...args], timeoutMs }, label);
    });
  }

  // Checked here, before the worker copies them into Lua.
  private checkArgs(label: string, argLists: readonly (readonly unknown[])[]): LuaError | undefined {
    if (!argLists.some((args) => args.some((arg) => nestedDeeperThan(arg, MAX_VALUE_DEPTH)))) return undefined;
    const detail = `an argument is nested more than ${MAX_VALUE_DEPTH} deep (or holds a cycle); pass flatter data`;
    return new LuaError({ kind: this.kind, script: label, detail });
  }

  // Known only once the worker a call runs on has been started, scripts loaded again.
  private checkNotLost(script: string, label: string): void {
    const lost = this.lost.get(script);
    if (lost) {
      const detail = `was lost when its Lua worker was restarted (${lost.detail}); load it again`;
      throw new LuaError({ kind: this.kind, script: label, detail, code: "lua_worker", cause: lost });
    }
  }

  /**
   * Several calls of one script in one round trip to the worker (each round trip costs a thread wake-up on
   * both sides), in order; resolves to their values. The limit applies to the batch as a whole. The first
   * failure ends the batch: the LuaError's `callIndex` says which call it was, and later calls do not run.
   */
  callEach(script: string, calls: readonly LuaCall[], limits?: CallLimits): Promise<unknown[]> {
    const label = this.labels.get(script) ?? script;
    const timeoutMs = limits?.timeoutMs ?? this.timeoutMs;
    const refused = this.checkArgs(
      label,
      calls.map((c) => c.args),
    );
    if (refused) return Promise.reject(refused);
    return this.enqueue(label, async (worker) => {
      this.checkNotLost(script, label);
      const values = await worker.run({ op: "calls", name: script, calls: [...calls], timeoutMs }, label);
      return values as unknown[];
    });
  }

  async unloadScript(name: string): Promise<void> {
    this.loaded.delete(name);
    this.lost.delete(name);
    this.labels.delete(name);
    if (!this.closed) await this.enqueue(name, async (worker) => worker.unload(name));
  }

  /** Stops the worker; a call in flight and every waiting one fail with "the Lua VM is closed". */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.worker?.close((script) => this.closedError(script));
    // Every waiting call fails (closed) before close resolves.
    await this.tail;
    this.worker = undefined;
    this.logLimiter.flush();
  }

  /**
   * Serializes every use of the worker. A task starts only when the one before it has settled, on a worker
   * that is alive (started again if it died) — so its limit is counted from when it really runs.
   */
  private enqueue<T>(script: string, task: (worker: LuaWorker) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(this.closedError(script));
    if (this.waiting >= MAX_WAITING_CALLS) {
      const detail = `${MAX_WAITING_CALLS} calls are already waiting for this Lua VM; try again when it is less busy`;
      return Promise.reject(new LuaError({ kind: this.kind, script, detail, code: "lua_unavailable" }));
    }
    this.waiting++;
    const result = this.tail.then(async () => {
      this.waiting--;
      if (this.closed) throw this.closedError(script);
      return task(await this.live(script));
    });
    this.tail = result.catch(() => {});
    return result;
  }

  /** The current worker, or a new one with every loaded script loaded into it again. */
  private async live(script: string): Promise<LuaWorker> {
    // Each failed round drops at least the script that failed, so this ends.
    for (let round = 0; round <= this.loaded.size + 1; round++) {
      if (this.worker?.alive) return this.worker;
      const worker = await this.start(script);
      this.worker = worker;
      for (const req of this.loaded.values()) {
        if (!worker.alive) break;
        try {
          await worker.run(req, req.label);
        } catch (err) {
          this.loaded.delete(req.name);
          this.lost.set(req.name, err as LuaError);
        }
      }
    }
    if (this.worker?.alive) return this.worker;
    throw new LuaError({ kind: this.kind, script, detail: "its Lua worker keeps stopping", code: "lua_worker" });
  }

  private async start(script: string): Promise<LuaWorker> {
    let worker: LuaWorker;
    try {
      worker = await LuaWorker.start(this.workerOptions);
    } catch (err) {
      const detail = err instanceof LuaError ? err.detail : errorMessage(err);
      throw new LuaError({ kind: this.kind, script, detail, code: "lua_worker", cause: err });
    }
    if (this.closed) {
      await worker.close((s) => this.closedError(s));
      throw this.closedError(script);
    }
    return worker;
  }

  /** A worker stopped (terminated at a limit, crashed): start the next one now rather than on the next call. */
  private replace(): void {
    if (this.closed) return;
    this.enqueue("", async () => {}).catch(() => {});
  }

  private closedError(script: string): LuaError {
    return new LuaError({ kind: this.kind, script, detail: "the Lua VM is closed", code: "lua_unavailable" });
  }
}
