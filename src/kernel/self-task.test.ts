/**
 * Defect 7: an interrupt during a self-task (consolidation) used to be absorbed by it — the self-task's
 * loop took the interrupt text and its reply went to `_consolidation_`, so the interrupter heard nothing.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { CapText } from "@homeagent/sdk";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { waitFor } from "../../test/fixtures/wait.js";

let h: Harness;
beforeEach(() => {
  h = startAgent();
});
afterEach(() => h.close());

test("an interrupt cancels a running self-task and is answered on the interrupter's channel", async () => {
  const timer: string[] = [];
  h.agent.outputs.register("timer", "timer", CapText, "timer", (m) => void timer.push(m.payload));
  h.llm.enqueue({ text: "consolidated", delayMs: 5000 }, { text: "the kettle is off" });
  const self = h.agent.injectSelf("merge these memory entries");
  await waitFor(() => h.llm.requests.length === 1, "the self-task's LLM call");

  h.agent.injectInterrupt("timer", "timer", "the kettle is boiling");

  const selfReply = await self;
  assert.match(selfReply.error ?? "", /interrupted by user input/);
  await waitFor(() => timer.length === 1, "the interrupt's reply on the timer channel");
  assert.deepEqual(timer, ["the kettle is off"]);
  assert.equal(h.llm.requests.length, 2, "the self-task's call was not asked again");
  const second = h.llm.requests[1].messages;
  assert.equal(second.at(-1)?.content, "the kettle is boiling");
  assert.match(second[0].content, /channel "timer"/);
  assert.ok(!second.some((m) => m.content.includes("merge these memory entries")));
});

test("an interrupt that displaced a self-task runs before input that was already waiting", async () => {
  const order: string[] = [];
  h.agent.outputs.register("timer", "timer", CapText, "timer", (m) => void order.push(`timer:${m.payload}`));
  h.agent.outputs.register("cli", "cli", CapText, "cli", (m) => void order.push(`cli:${m.payload}`));
  h.llm.enqueue({ text: "consolidated", delayMs: 5000 });
  h.llm.fallback = (req) => ({ text: `re: ${req.messages.at(-1)?.content}` });
  const self = h.agent.injectSelf("consolidate");
  await waitFor(() => h.llm.requests.length === 1, "the self-task's LLM call");
  h.agent.injectInput("cli", "cli", "queued question");
  h.agent.injectInterrupt("timer", "timer", "ring");
  await self;
  await waitFor(() => order.length === 2, "both replies");
  assert.deepEqual(order, ["timer:re: ring", "cli:re: queued question"]);
});
