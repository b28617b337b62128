/**
 * A worker that is closed while idle is terminated only after a quiet period, not at once: Node 20 can abort
 * the whole process when it disposes of a terminated isolate whose concurrent compile is still running,
 * which a worker that has just served calls often has. A busy worker is terminated at once.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../test/fixtures/wait.js";
import { LuaError } from "./lua-error.js";
import { LuaWorker } from "./worker-host.js";

function start(exits: number[]): Promise<LuaWorker> {
  return LuaWorker.start({
    kind: "adapter",
    memoryLimitBytes: 16 * 1024 * 1024,
    httpAllowedHosts: [],
    httpTimeoutMs: 1000,
    log: () => {},
    onExit: (code) => exits.push(code),
  });
}

const closed = (script: string) => new LuaError({ kind: "adapter", script, detail: "closed", code: "lua_unavailable" });
const SCRIPT = `return { add = function(a, b) local s = "" for i = 1, 2000 do s = s .. i end return a + b end }`;

test("an idle worker closed after hot calls is stopped after a quiet period, not at once", async () => {
  const exits: number[] = [];
  const worker = await start(exits);
  await worker.run({ op: "load", name: "s", source: SCRIPT, label: "s", libraries: {}, timeoutMs: 2000 }, "s");
  for (let i = 0; i < 50; i++) {
    assert.equal(await worker.run({ op: "call", name: "s", fn: "add", args: [i, 1], timeoutMs: 2000 }, "s"), i + 1);
  }
  await worker.close(closed);
  assert.deepEqual(exits, [], "the thread is not disposed of right after its last call");
  assert.equal(worker.alive, false);
  await assert.rejects(worker.run({ op: "call", name: "s", fn: "add", args: [1, 1], timeoutMs: 2000 }, "s"), /stopped/);
  // The quiet period is 5 s (worker-host.ts): the wait allows for it on a loaded machine.
  await waitFor(() => exits.length === 1, "the closed worker's thread stopped", { timeoutMs: 20_000 });
});

test("a busy worker is terminated by close, and its call fails with the close reason", async () => {
  const exits: number[] = [];
  const worker = await start(exits);
  const loop = `return { spin = function() while true do end end }`;
  await worker.run({ op: "load", name: "l", source: loop, label: "l", libraries: {}, timeoutMs: 5000 }, "l");
  const call = assert.rejects(
    worker.run({ op: "call", name: "l", fn: "spin", args: [], timeoutMs: 5000 }, "l"),
    /closed/,
  );
  await worker.close(closed);
  await call;
  assert.deepEqual(exits, [1]);
});
