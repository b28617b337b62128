/**
 * Self-tasks. Defect 7: an interrupt during a self-task (consolidation) used to be absorbed by it — the
 * self-task's loop took the interrupt text and its reply went to `_consolidation_`, so the interrupter heard
 * nothing. A self-task is offered only the tools of its allowlist, and any other call is refused.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";

import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { waitFor } from "../../test/fixtures/wait.js";

let h: Harness;
beforeEach(() => {
  h = startAgent();
});
afterEach(() => h.close());

test("an interrupt cancels a running self-task and is answered on the interrupter's channel", async () => {
  const timer: string[] = [];
  h.agent.outputs.register("timer", "timer", ["text"], "timer", (m) => void timer.push(m.payload));
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
  h.agent.outputs.register("timer", "timer", ["text"], "timer", (m) => void order.push(`timer:${m.payload}`));
  h.agent.outputs.register("cli", "cli", ["text"], "cli", (m) => void order.push(`cli:${m.payload}`));
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

test("a self-task is offered only its allowlist; any other call is refused with a clear result", async () => {
  const ran: string[] = [];
  for (const name of ["memory_merge", "memory_edit", "shell_exec"]) {
    h.agent.tools.register("mem", { name, description: name, parameters: { type: "object" } }, () => {
      ran.push(name);
      return `${name} ok`;
    });
  }
  h.llm.enqueue({ toolCalls: [{ name: "shell_exec" }, { name: "memory_merge" }] }, { text: "merged" });
  const reply = await h.agent.injectSelf("merge A into B", { tools: ["memory_merge", "memory_edit"] });
  assert.equal(reply.content, "merged");
  assert.deepEqual((h.llm.requests[0].tools ?? []).map((t) => t.function.name).sort(), ["memory_edit", "memory_merge"]);
  assert.deepEqual(ran, ["memory_merge"], "the refused tool never ran");
  const results = h.llm.requests[1].messages.filter((m) => m.role === "tool").map((m) => m.content);
  assert.equal(results[0], 'error: tool "shell_exec" is not allowed in this task; allowed: memory_edit, memory_merge');
  assert.equal(results[1], "memory_merge ok");
  assert.deepEqual(h.context.prunes, [], "a self-task does not prune");
  assert.equal(h.context.size(), 0, "nor does it write a user event");
});

test("a self-task without an allowlist gets no tools", async () => {
  h.agent.tools.register("x", { name: "anything", description: "", parameters: { type: "object" } }, () => "no");
  h.llm.enqueue({ text: "thought about it" });
  await h.agent.injectSelf("think");
  assert.deepEqual(h.llm.requests[0].tools, []);
});

test("a self-task that names an output channel delivers its reply and records it as an agent event", async () => {
  const got: string[] = [];
  h.agent.outputs.register("p", "cli", ["text"], "cli", (m) => void got.push(m.payload));
  h.llm.enqueue({ text: "time to stretch (・ω・)" });
  const reply = await h.agent.injectSelf("remind the user to stretch", { outputChannel: "cli" });
  assert.equal(reply.content, "time to stretch (・ω・)");
  assert.deepEqual(got, ["time to stretch (・ω・)"]);
  const [e] = await h.context.window();
  assert.equal(e.kind, "agent");
  assert.equal(e.channel, "cli");
  assert.equal(e.response, "time to stretch (・ω・)");
  assert.equal(e.noMemory, false, "delivered to the user, so remembered");
  assert.deepEqual(h.context.prunes, []);
});

test("a self-task stops at its own bound of tool rounds, and when its signal fires", async () => {
  h.agent.tools.register("x", { name: "probe_tool", description: "", parameters: { type: "object" } }, () => "ok");
  const loop = { toolCalls: [{ name: "probe_tool" }] };
  h.llm.enqueue(loop, loop, loop, { text: "never reached" });
  const bounded = await h.agent.injectSelf("try it", { tools: ["probe_tool"], maxToolTurns: 2 });
  assert.match(bounded.content, /^Stopped: tool execution exceeded 2 turns/);

  const stop = new AbortController();
  stop.abort(new Error("its deadline passed"));
  await assert.rejects(
    h.agent.injectSelf("too late", { signal: stop.signal }),
    (err: Error & { code?: string }) => err.code === "input_cancelled",
  );
});
