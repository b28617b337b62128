/**
 * Starting a Lua worker thread takes 100–250 ms (a new V8 isolate, loading wasmoon, compiling its wasm),
 * which would land on the first call of every new adapter provider and on the first call after a worker
 * was terminated. So once a thread has been taken, one booted thread is kept in reserve per memory limit:
 * taking it is instant, and the next one boots in the background. No thread exists before the first is
 * taken, and a reserve nobody takes within RESERVE_IDLE_MS is let go: each thread holds ≈ 11 MB, which a
 * daemon at rest should not carry for a call that may never come (issue 20). A thread in reserve is
 * unref'd and never keeps the process alive.
 */
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { compileInWorkersOwnThread } from "../util/worker-isolates.js";
import { JSON_LUA } from "./json-source.js";
import { LuaError } from "./lua-error.js";
import { PRELUDE_LUA } from "./prelude.js";
import { MAX_VALUE_DEPTH } from "./value-limits.js";

/** A booted worker thread with its Lua state ready, and the channel its HTTP answers travel on. */
export interface LuaThread {
  readonly worker: Worker;
  /** The host's end of the channel HTTP answers go back on (the worker reads it while blocked). */
  readonly httpPort: MessagePort;
  /** Bumped after each answer is posted, to wake the worker from Atomics.wait. */
  readonly httpFlag: Int32Array;
  /**
   * [0]: which call of a batch the worker is running, so that a batch whose worker had to be terminated
   * still names the call that ran away (the worker cannot be asked then).
   */
  readonly progress: Int32Array;
  /** The uncaught error the thread reported before it stopped (out of memory included). */
  crash?: Error;
  exited: boolean;
}

/** Marks a Lua function in a value the worker returns (functions cannot be posted). */
export const FUNCTION_MARK = "\u0000lua_function";

const BOOT_TIMEOUT_MS = 30_000;
/**
 * How long a booted thread waits in reserve before it is terminated: long enough for a burst of new VMs
 * (a source rebuilt after a settings change, an adapter tested and then saved, a Lua plugin restarted).
 */
const RESERVE_IDLE_MS = 5_000;
const WORKER_URL = new URL("./lua-worker.js", import.meta.url);
const MIB = 1024 * 1024;

/** Memory limit → the thread in reserve for it (still booting, perhaps). */
const spares = new Map<number, Promise<LuaThread>>();

/** The thread in reserve for this memory limit (perhaps still booting); undefined when there is none. */
export function reserveFor(memoryLimitBytes: number): Promise<LuaThread> | undefined {
  return spares.get(memoryLimitBytes);
}

/**
 * A booted thread for a Lua state capped at `memoryLimitBytes`; rejects with a lua_worker LuaError.
 * `reserveIdleMs`: how long the reserve it leaves booting waits for a taker (tests shorten it).
 */
export async function takeThread(memoryLimitBytes: number, reserveIdleMs = RESERVE_IDLE_MS): Promise<LuaThread> {
  const spare = spares.get(memoryLimitBytes);
  spares.delete(memoryLimitBytes);
  let thread = spare && (await spare.catch(() => undefined));
  if (!thread || thread.exited) thread = await bootThread(memoryLimitBytes, false);
  if (!spares.has(memoryLimitBytes)) {
    const next = bootThread(memoryLimitBytes, true);
    const stillSpare = () => spares.get(memoryLimitBytes) === next;
    next.then(
      (booted) => {
        setTimeout(() => {
          if (!stillSpare()) return;
          spares.delete(memoryLimitBytes);
          void booted.worker.terminate();
        }, reserveIdleMs).unref();
      },
      () => {
        if (stillSpare()) spares.delete(memoryLimitBytes);
      },
    );
    spares.set(memoryLimitBytes, next);
  }
  return thread;
}

function bootThread(memoryLimitBytes: number, reserve: boolean): Promise<LuaThread> {
  const httpFlag = new Int32Array(new SharedArrayBuffer(4));
  const progress = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  compileInWorkersOwnThread();
  const worker = new Worker(WORKER_URL, {
    // The parent's flags would load tsx into the worker: slower, and not needed by plain JS.
    execArgv: [],
    workerData: {
      prelude: PRELUDE_LUA,
      jsonSource: JSON_LUA,
      memoryLimitBytes,
      httpPort: port2,
      httpFlag,
      progress,
      functionMark: FUNCTION_MARK,
      maxValueDepth: MAX_VALUE_DEPTH,
    },
    transferList: [port2],
    // Lua's own heap is capped inside the state; this caps the JS side (values copied out of Lua), so a
    // runaway allocation kills this worker and never the daemon.
    resourceLimits: { maxOldGenerationSizeMb: Math.max(64, 3 * Math.ceil(memoryLimitBytes / MIB)) },
  });
  const thread: LuaThread = { worker, httpPort: port1, httpFlag, progress, exited: false };
  worker.on("error", (err) => {
    thread.crash = err;
  });
  worker.once("exit", () => {
    thread.exited = true;
    port1.close();
  });
  if (reserve) worker.unref();
  return new Promise((resolve, reject) => {
    const fail = (detail: string) => {
      clearTimeout(timer);
      worker.off("message", onReady);
      void worker.terminate();
      reject(new LuaError({ kind: "script", script: "", detail, code: "lua_worker", cause: thread.crash }));
    };
    const timer = setTimeout(() => fail(`the Lua worker did not start within ${BOOT_TIMEOUT_MS} ms`), BOOT_TIMEOUT_MS);
    if (reserve) timer.unref();
    const onReady = (msg: { op?: string }) => {
      if (msg.op !== "ready") return;
      clearTimeout(timer);
      worker.off("message", onReady);
      worker.off("exit", onEarlyExit);
      worker.unref();
      resolve(thread);
    };
    const onEarlyExit = () => fail(`the Lua worker could not start: ${thread.crash?.message ?? "it exited"}`);
    worker.on("message", onReady);
    worker.once("exit", onEarlyExit);
  });
}
