/**
 * Defect 20: one long-lived cli connection passes the same AbortSignal with every message; each input
 * used to add an abort listener to it and never remove it (MaxListenersExceededWarning after 11).
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { afterEach, beforeEach, test } from "node:test";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";

let h: Harness;
const warnings: Error[] = [];
const onWarning = (w: Error) => void warnings.push(w);
beforeEach(() => {
  h = startAgent();
  warnings.length = 0;
  process.on("warning", onWarning);
});
afterEach(async () => {
  process.off("warning", onWarning);
  await h.close();
});

/** No abort listener is left on the signal, and no warning came (it is emitted on a later turn of the loop). */
async function assertNothingLeftOn(signal: AbortSignal): Promise<void> {
  assert.equal(getEventListeners(signal, "abort").length, 0);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    warnings.map((w) => w.name),
    [],
  );
}

test("50 inputs on one signal, one after another, leave no listener on it", async () => {
  const connection = new AbortController();
  for (let i = 0; i < 50; i++) {
    await h.agent.injectInputSync("cli", "cli", `message ${i}`, { signal: connection.signal });
  }
  await assertNothingLeftOn(connection.signal);
});

test("50 inputs queued at once on one signal hold at most two listeners and leave none", async () => {
  const connection = new AbortController();
  let most = 0;
  h.agent.stages.register("probe", "on_input", () => {
    most = Math.max(most, getEventListeners(connection.signal, "abort").length);
  });
  const replies = Array.from({ length: 50 }, (_, i) =>
    h.agent.injectInputSync("cli", "cli", `message ${i}`, { signal: connection.signal }),
  );
  await Promise.all(replies);
  assert.ok(most <= 2, `${most} listeners at once`);
  await assertNothingLeftOn(connection.signal);
});

test("aborting the signal still drops every input it has queued", async () => {
  const connection = new AbortController();
  h.llm.enqueue({ text: "slow", delayMs: 5000 });
  const replies = Array.from({ length: 5 }, (_, i) =>
    h.agent.injectInputSync("cli", "cli", `message ${i}`, { signal: connection.signal }),
  );
  connection.abort(new Error("cancelled: the client went away"));
  const errors = (await Promise.all(replies)).map((r) => r.error);
  assert.deepEqual(errors, Array(5).fill("cancelled: the client went away"));
  assert.equal(getEventListeners(connection.signal, "abort").length, 0);
});
