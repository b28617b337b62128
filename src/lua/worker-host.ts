/**
 * The main-thread side of one Lua worker thread (lua-worker.js). Lua runs synchronously wherever it runs,
 * and some scripts cannot be stopped from inside: a loop in a __gc finalizer (Lua runs no hooks there), a
 * loop in an error's __tostring, one long C call such as a pathological string.find. So the state lives in
 * a thread of its own, and the guarantee is here: each request has a deadline on this thread's clock, and a
 * request that passes it gets its worker terminated. The in-Lua count hook still stops ordinary loops at
 * the limit with a clean error and the worker kept; the terminate comes a grace period later, for what the
 * hook cannot reach.
 *
 * Time the script spends waiting on http_get/http_post does not count against its limit (a slow server is
 * not a runaway loop): the clock stops while a request is out, and the HTTP budget bounds that wait.
 */
import type { Worker } from "node:worker_threads";
import { HomeAgentError } from "../util/errors.js";
import { HttpGate, type LuaHttpRequest } from "./http-gate.js";
import { LuaError } from "./lua-error.js";
import { FUNCTION_MARK, type LuaThread, takeThread } from "./worker-pool.js";

export type LuaLogLevel = "debug" | "info" | "warn" | "error";

export type WorkerRequest =
  | {
      op: "load";
      name: string;
      source: string;
      label: string;
      /** JSON text of an object whose keys become globals of the script. */
      globals?: string;
      libraries: Readonly<Record<string, string>>;
      timeoutMs: number;
    }
  | { op: "call"; name: string; fn: string; args: unknown[]; timeoutMs: number }
  /** Several calls of one script in one round trip, under one limit; answered with the array of their values. */
  | { op: "calls"; name: string; calls: LuaCall[]; timeoutMs: number };

export interface LuaCall {
  fn: string;
  args: unknown[];
}

export interface LuaWorkerOptions {
  kind: string;
  memoryLimitBytes: number;
  httpAllowedHosts: readonly string[];
  httpTimeoutMs: number;
  log: (level: LuaLogLevel, script: string, message: string) => void;
  /** Called once when a worker that had started has stopped, whatever the reason, with its exit code. */
  onExit?: (code: number) => void;
}

type WorkerMessage =
  | { op: "done"; id: number; ok: true; value: unknown }
  | { op: "done"; id: number; ok: false; error: string; timedOut: boolean; broken: boolean; index?: number }
  | { op: "log"; script: string; level: string; message: string }
  | { op: "http"; id: number; request: LuaHttpRequest };

interface Pending {
  id: number;
  script: string;
  /** A batch ("calls"): its failures name the call that failed. */
  batch: boolean;
  limitMs: number;
  started: number;
  /** Time spent waiting on HTTP so far, and when the request now out was sent. */
  httpWaited: number;
  httpSince?: number;
  timer?: NodeJS.Timeout;
  resolve(value: unknown): void;
  reject(err: LuaError): void;
}

/** How long after its limit a call that the hook did not stop is terminated. */
const TERMINATE_GRACE_MS = 250;
/**
 * How long a closed idle worker stays idle before it is terminated (see close). 1 s was not always enough
 * on a loaded 2-core machine: the compiler threads there still held a job of a worker that had just served
 * a daemon's warm-up rehearsal, and the process aborted.
 */
const QUIET_MS = 5000;
/** The worker's own bound on one HTTP wait, beyond the budget the host enforces. */
const HTTP_WAIT_GRACE_MS = 1000;
const LOG_LEVELS = new Set<string>(["debug", "info", "warn", "error"]);

/** Stands in for a Lua function in a value returned to JS; the function itself stays in the worker. */
function luaFunction(): never {
  throw new HomeAgentError({ code: "internal_error", message: "this is a Lua function: call it through LuaVM.call" });
}

export class LuaWorker {
  private readonly worker: Worker;
  private readonly gate: HttpGate;
  private readonly stopped = new AbortController();
  private pending?: Pending;
  private nextId = 0;
  private terminating = false;

  private constructor(
    private readonly thread: LuaThread,
    private readonly opts: LuaWorkerOptions,
  ) {
    this.worker = thread.worker;
    this.gate = new HttpGate({
      kind: opts.kind,
      allowedHosts: opts.httpAllowedHosts,
      budgetMs: opts.httpTimeoutMs,
    });
    this.worker.on("message", (msg: WorkerMessage) => this.onMessage(msg));
    this.worker.once("exit", (code) => this.onExit(code));
    // It may have stopped while it waited in reserve.
    if (thread.exited) this.terminating = true;
  }

  /** A worker whose Lua state is ready; one that cannot start is a lua_worker error. */
  static async start(opts: LuaWorkerOptions): Promise<LuaWorker> {
    return new LuaWorker(await takeThread(opts.memoryLimitBytes), opts);
  }

  get alive(): boolean {
    return !this.terminating;
  }

  /** Runs one load or call; rejects with a LuaError naming `script` (the label the caller knows it by). */
  run(req: WorkerRequest, script: string): Promise<unknown> {
    if (!this.alive) return Promise.reject(this.failure(script, "the Lua worker has stopped"));
    if (this.pending) return Promise.reject(this.failure(script, "the Lua worker is busy (calls must be queued)"));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        id,
        script,
        batch: req.op === "calls",
        limitMs: req.timeoutMs,
        started: performance.now(),
        httpWaited: 0,
        resolve,
        reject,
      };
      this.pending = pending;
      this.gate.resetBudget();
      this.worker.ref();
      this.worker.postMessage({ ...req, id, httpWaitMs: this.opts.httpTimeoutMs + HTTP_WAIT_GRACE_MS });
      this.arm(pending);
    });
  }

  unload(name: string): void {
    if (this.alive) this.worker.postMessage({ op: "unload", name });
  }

  /**
   * Stops the worker for good. A busy one is terminated at once. An idle one is terminated after QUIET_MS
   * more of idleness: Node 20 aborts the whole process ("NodePlatform::ForIsolate Assertion failed") when it
   * disposes of an isolate whose concurrent compile is still running, which a worker that has just served
   * calls often has. (Letting the thread end by itself was tried: its exit could block for good in Node's
   * drain of background tasks.) The thread is unref'd meanwhile, so it never holds the process open.
   */
  async close(reason: (script: string) => LuaError): Promise<void> {
    if (this.terminating) return;
    if (this.pending) return this.terminate(reason);
    this.terminating = true;
    this.stopped.abort();
    setTimeout(() => void this.worker.terminate(), QUIET_MS).unref();
  }

  /** Stops the worker at once; a request in flight is rejected with `reason(its script)`. */
  async terminate(reason: (script: string) => LuaError): Promise<void> {
    if (this.terminating) return;
    this.terminating = true;
    const pending = this.settle();
    pending?.reject(reason(pending.script));
    this.stopped.abort();
    await this.worker.terminate();
  }

  /**
   * (Re)sets the hard deadline, which is always armed. Lua time: the request's time so far, HTTP waits
   * excluded, against its limit plus the grace; the clock stops while a request is out and the answer
   * re-arms it. Wall time: the limit plus the whole HTTP budget plus the graces, counted while requests
   * are out too, so that nothing (an answer that never comes back included) can run unbounded.
   */
  private arm(pending: Pending): void {
    clearTimeout(pending.timer);
    if (this.pending !== pending) return;
    const now = performance.now();
    const luaLeft =
      pending.httpSince === undefined
        ? pending.limitMs + TERMINATE_GRACE_MS - (now - pending.started - pending.httpWaited)
        : Number.POSITIVE_INFINITY;
    const wallLeft = pending.started + this.wallLimitMs(pending) - now;
    const left = Math.min(luaLeft, wallLeft);
    if (left > 0) {
      pending.timer = setTimeout(() => this.arm(pending), left);
      return;
    }
    void this.terminate(() => this.timeout(pending));
  }

  private wallLimitMs(pending: Pending): number {
    return pending.limitMs + this.opts.httpTimeoutMs + HTTP_WAIT_GRACE_MS + TERMINATE_GRACE_MS;
  }

  private onMessage(msg: WorkerMessage): void {
    switch (msg.op) {
      case "done": {
        const pending = this.pending?.id === msg.id ? this.settle() : undefined;
        if (!pending) return;
        if (msg.ok) pending.resolve(revive(msg.value));
        else if (msg.timedOut) pending.reject(this.timeout(pending));
        else if (msg.broken) this.discard(pending, msg.error, msg.index);
        else {
          const { kind } = this.opts;
          pending.reject(new LuaError({ kind, script: pending.script, detail: msg.error, callIndex: msg.index }));
        }
        return;
      }
      case "log":
        this.opts.log(LOG_LEVELS.has(msg.level) ? (msg.level as LuaLogLevel) : "info", msg.script, msg.message);
        return;
      case "http":
        void this.http(msg.id, msg.request);
        return;
    }
  }

  private async http(id: number, request: LuaHttpRequest): Promise<void> {
    const pending = this.pending;
    const since = performance.now();
    if (pending) {
      pending.httpSince = since;
      this.arm(pending);
    }
    const reply = await this.gate.request(request, this.stopped.signal);
    if (this.terminating) return;
    this.thread.httpPort.postMessage({ id, reply });
    Atomics.add(this.thread.httpFlag, 0, 1);
    Atomics.notify(this.thread.httpFlag, 0);
    if (pending) {
      pending.httpWaited += performance.now() - since;
      pending.httpSince = undefined;
      this.arm(pending);
    }
  }

  /**
   * The request failed in a way that may have left the Lua state inconsistent (a wasm trap, an abort, an
   * error from outside Lua): nothing more may run in it. The worker, idle now, is closed, and a new one with
   * the scripts loaded again serves later calls, as after a timeout.
   */
  private discard(pending: Pending, error: string, callIndex?: number): void {
    const detail = `its Lua state broke (${error}); the Lua worker was restarted`;
    pending.reject(this.failure(pending.script, detail, undefined, callIndex));
    void this.close(() => this.failure(pending.script, detail));
  }

  private onExit(code: number): void {
    this.terminating = true;
    this.stopped.abort();
    const pending = this.settle();
    if (pending) {
      const { crash } = this.thread;
      const why =
        (crash as { code?: string } | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? "its Lua worker ran out of memory and was restarted"
          : `its Lua worker stopped (${crash?.message ?? `exit code ${code}`}) and was restarted`;
      const err = this.failure(pending.script, why, crash, this.callIndex(pending));
      pending.reject(err);
    }
    this.opts.onExit?.(code);
  }

  private settle(): Pending | undefined {
    const pending = this.pending;
    if (!pending) return undefined;
    clearTimeout(pending.timer);
    this.pending = undefined;
    if (!this.terminating) this.worker.unref();
    return pending;
  }

  private timeout(pending: Pending): LuaError {
    const wall = performance.now() - pending.started >= this.wallLimitMs(pending);
    const budget = wall ? ` of Lua time plus its ${this.opts.httpTimeoutMs} ms HTTP budget` : "";
    return new LuaError({
      kind: this.opts.kind,
      script: pending.script,
      detail: `exceeded ${pending.limitMs} ms${budget}`,
      code: "lua_timeout",
      callIndex: this.callIndex(pending),
    });
  }

  /** The call of a batch the worker was running, read where it left it (it may be stuck and unable to say). */
  private callIndex(pending: Pending): number | undefined {
    return pending.batch ? Atomics.load(this.thread.progress, 0) : undefined;
  }

  private failure(script: string, detail: string, cause?: unknown, callIndex?: number): LuaError {
    return new LuaError({ kind: this.opts.kind, script, detail, code: "lua_worker", cause, callIndex });
  }
}

/** Turns the worker's function markers back into (stub) functions, so `typeof f === "function"` still holds. */
function revive(value: unknown, seen = new Set<object>()): unknown {
  if (value === null || typeof value !== "object" || seen.has(value)) return value;
  if (FUNCTION_MARK in value) return luaFunction;
  seen.add(value);
  const record = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(record)) record[k] = revive(v, seen);
  return value;
}
