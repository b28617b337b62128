/**
 * The Lua thread pool at rest: no thread before the first is taken, and a reserve nobody takes is let go.
 * Runs in a process of its own, whose Worker ids are the pool's and nobody else's.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import { NODE_FLAGS } from "../../test/fixtures/node-entry.js";

const POOL = new URL("./worker-pool.js", import.meta.url).href;

test("no Lua thread exists before the first is taken; the reserve booted then is let go when nobody takes it", async () => {
  const code = `
    import { once } from "node:events";
    import { reserveFor, takeThread } from ${JSON.stringify(POOL)};
    const LIMIT = 16 * 1024 * 1024;
    const taken = await takeThread(LIMIT, 50);
    const firstThreadId = taken.worker.threadId;
    const reserve = await reserveFor(LIMIT);
    const reserveThreadId = reserve.worker.threadId;
    // Nobody takes it: it exits after its idle time, and the pool holds no reserve any more. The pool's
    // threads and timer never keep a process alive: an interval does, until then.
    const alive = setInterval(() => {}, 1000);
    const [code] = await once(reserve.worker, "exit");
    clearInterval(alive);
    const reserveGone = reserveFor(LIMIT) === undefined;
    await taken.worker.terminate();
    console.log(JSON.stringify({ firstThreadId, reserveThreadId, reserveExit: code, reserveGone }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, [...NODE_FLAGS, "--input-type=module", "-e", code]);
  // Thread ids count every Worker the process made: 1 means importing the pool started none.
  assert.deepEqual(JSON.parse(stdout), { firstThreadId: 1, reserveThreadId: 2, reserveExit: 1, reserveGone: true });
});
