/**
 * The Lua thread pool at rest: no thread before the first is taken, and a reserve nobody takes is let go.
 * Runs in a process of its own, whose threads (from /proc) are the pool's and nobody else's.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import { NODE_FLAGS } from "../../test/fixtures/node-entry.js";

const POOL = new URL("./worker-pool.js", import.meta.url).href;

test("no Lua thread exists before the first is taken; the reserve booted then is let go when nobody takes it", async () => {
  const code = `
    import { readFile } from "node:fs/promises";
    import { readFileSync } from "node:fs";
    import { takeThread } from ${JSON.stringify(POOL)};
    const threads = () => Number(/Threads:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]);
    const until = async (cond, ms) => {
      for (const end = Date.now() + ms; !cond(); ) {
        if (Date.now() > end) return false;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return true;
    };
    // libuv's thread pool starts on first use: before counting, so that only Lua threads come and go.
    await readFile("/proc/self/status");
    const base = threads();
    const taken = await takeThread(16 * 1024 * 1024);
    const firstThreadId = taken.worker.threadId;
    const reserveBooted = await until(() => threads() === base + 2, 30000);
    const reserveGone = await until(() => threads() === base + 1, 30000);
    await taken.worker.terminate();
    console.log(JSON.stringify({ firstThreadId, reserveBooted, reserveGone }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, [...NODE_FLAGS, "--input-type=module", "-e", code]);
  // Thread ids count every Worker the process made: 1 means importing the pool started none.
  assert.deepEqual(JSON.parse(stdout), { firstThreadId: 1, reserveBooted: true, reserveGone: true });
});
