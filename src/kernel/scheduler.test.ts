import assert from "node:assert/strict";
import { test } from "node:test";

import { startAgent } from "../../test/fixtures/kernel-harness.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { QueueFullError, Scheduler } from "./scheduler.js";
import type { InputTask } from "./types.js";

const task = (requestId: string, kind: InputTask["kind"] = "input"): InputTask => ({
  requestId,
  kind,
  source: "t",
  channel: "t",
  text: requestId,
  opts: {},
  release: () => {},
});

test("interrupts are served first, then kernel self-tasks, then waiting user input", async () => {
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const s = new Scheduler(
    async (t) => {
      order.push(t.requestId);
      if (t.requestId === "u1") await gate;
    },
    () => {},
  );
  s.start();
  s.enqueue(task("u1"));
  await waitFor(() => order.length === 1, "u1 to start");
  s.enqueue(task("u2"));
  s.enqueue(task("self", "self"));
  s.enqueue(task("int", "interrupt"));
  release();
  await waitFor(() => order.length === 4, "all four tasks");
  assert.deepEqual(order, ["u1", "int", "self", "u2"]);
  await s.stop();
});

test("a full queue refuses input with a clear error, and stop tells every waiting task why", async () => {
  const dropped: string[] = [];
  const s = new Scheduler(
    async () => {},
    (t, reason) => dropped.push(`${t.requestId}: ${reason}`),
    2,
  );
  s.enqueue(task("a"));
  s.enqueue(task("b"));
  assert.throws(() => s.enqueue(task("c")), QueueFullError);
  assert.equal(s.stats.rejected, 1);
  await s.stop();
  assert.deepEqual(dropped, [
    "a: homed is shutting down; this message was not answered",
    "b: homed is shutting down; this message was not answered",
  ]);
  assert.throws(() => s.enqueue(task("d")), /shutting down/);
});

test("a self-task's reply goes to _consolidation_, never to a user channel", async () => {
  const h = startAgent();
  try {
    const delivered: string[] = [];
    h.agent.outputs.register("p", "cli", ["text"], "cli", (m) => void delivered.push(m.payload));
    h.llm.enqueue({ text: "consolidated" });
    const reply = await h.agent.injectSelf("consolidate memory");
    assert.equal(reply.content, "consolidated");
    assert.deepEqual(delivered, []);
    assert.match(h.llm.requests[0].messages[0].content, /channel "_consolidation_"/);
  } finally {
    await h.close();
  }
});
