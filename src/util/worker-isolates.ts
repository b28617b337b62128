/**
 * Node 20 aborts the whole process ("NodePlatform::ForIsolate Assertion failed") when it disposes of a
 * worker's isolate while a concurrent Turbofan job of that isolate is still running on a background thread:
 * a Lua worker terminated after a timeout, or a spare one let go, could take the daemon down with it. The
 * V8 flag read when an isolate starts makes the isolates created from then on compile on their own thread,
 * so no job of theirs outlives them; the main thread's isolate, made before, keeps compiling concurrently.
 */
import { setFlagsFromString } from "node:v8";

let set = false;

/** Call before creating a worker thread; once is enough. */
export function compileInWorkersOwnThread(): void {
  if (set) return;
  set = true;
  setFlagsFromString("--no-concurrent-recompilation");
}
