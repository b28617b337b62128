/**
 * The shapes the web UI replays: tool_call start/end, one stage event per stage run, reset deltas, and
 * camelCase payload keys.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import type { AgentEvent } from "@homeagent/sdk";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { waitFor } from "../../test/fixtures/wait.js";

let h: Harness;
let events: AgentEvent[];
beforeEach(() => {
  h = startAgent();
  events = [];
  h.agent.bus.subscribe("*", (e) => void events.push(e));
  h.agent.tools.register("demo", { name: "add", description: "", parameters: { type: "object" } }, (a) =>
    String(Number(a.a) + Number(a.b)),
  );
});
afterEach(() => h.close());

const ofType = (type: AgentEvent["type"]) => events.filter((e) => e.type === type).map((e) => e.payload);
/** The reasoning and content deltas in order, as `type:content`, with `:reset` on those that start over. */
const deltas = () =>
  events
    .filter((e) => e.type === "reasoning_delta" || e.type === "content_delta")
    .map((e) => `${e.type}:${e.payload.content}${e.payload.reset ? ":reset" : ""}`);

test("tool_call is published when the tool starts and when its result is final", async () => {
  h.llm.enqueue({ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] }, { text: "5" });
  const reply = await h.agent.injectInputSync("cli", "cli", "2+3?");
  const calls = events.filter((e) => e.type === "tool_call");
  assert.equal(calls.length, 2);
  const [start, end] = calls.map((e) => e.payload);
  assert.deepEqual(start, {
    phase: "start",
    requestId: reply.requestId,
    toolCallId: "call_1",
    name: "add",
    arguments: { a: 2, b: 3 },
  });
  const { durationMs, ...rest } = end;
  assert.deepEqual(rest, {
    phase: "end",
    requestId: reply.requestId,
    toolCallId: "call_1",
    name: "add",
    status: "ok",
    result: "5",
  });
  assert.equal(typeof durationMs, "number");
  assert.ok(calls[0].seq < calls[1].seq);
});

test("a call refused by before_toolcall has only its end, with status denied", async () => {
  h.agent.stages.register("guard", "before_toolcall", (ctx) => {
    ctx.response = "no";
  });
  h.llm.enqueue({ toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] });
  await h.agent.injectInputSync("cli", "cli", "go");
  const calls = ofType("tool_call");
  assert.deepEqual(
    calls.map((c) => `${c.phase}:${c.status}`),
    ["end:denied"],
  );
});

test("every stage run is published with its handler count, duration and errors", async () => {
  h.agent.stages.register("p", "pre_action", () => {
    throw new Error("boom");
  });
  h.agent.stages.register("q", "pre_action", () => {});
  h.llm.enqueue({ toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] }, { text: "2" });
  const reply = await h.agent.injectInputSync("cli", "cli", "1+1");
  const stages = ofType("stage");
  assert.deepEqual(
    stages.map((s) => `${s.stage}:${s.handlers}`),
    [
      "on_input:0",
      "pre_action:2",
      "post_action:0",
      "before_toolcall:0",
      "after_toolcall:0",
      "post_action:0",
      "before_output:0",
      "after_output:0",
    ],
  );
  const pre = stages[1];
  assert.equal(pre.requestId, reply.requestId);
  assert.equal(typeof pre.durationMs, "number");
  assert.deepEqual(pre.errors, [{ plugin: "p", message: "boom" }]);
});

test("payload keys are camelCase and every event has the next seq", async () => {
  h.llm.enqueue({ toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }] }, { text: "3", reasoning: "easy" });
  await h.agent.injectInputSync("cli", "cli", "1+2");
  assert.ok(events.length > 5);
  events.forEach((e, i) => {
    if (i > 0) assert.equal(e.seq, events[i - 1].seq + 1, `seq of event ${i} (${e.type})`);
    for (const key of Object.keys(e.payload)) assert.doesNotMatch(key, /_/, `${e.type} payload key ${key}`);
  });
  const output = ofType("agent_output")[0];
  assert.equal(output.reasoningContent, "easy");
  assert.ok(Array.isArray(ofType("agent_llm_chain")[0].toolCalls));
});

test("deltas that start over after an interruption are preceded by a reset, for reasoning as for content", async () => {
  h.llm.enqueue(
    { partial: { reasoning: "thinking about essays", text: "An essay" }, delayMs: 5000, text: "never" },
    { text: "kettle first", reasoning: "the kettle matters" },
  );
  const pending = h.agent.injectInputSync("cli", "cli", "write an essay");
  await waitFor(() => h.llm.requests.length === 1, "the first LLM call");
  h.agent.injectInterrupt("timer", "timer", "the kettle is boiling");
  await pending;
  assert.deepEqual(deltas(), [
    "reasoning_delta:thinking about essays",
    "content_delta:An essay",
    "reasoning_delta::reset",
    "content_delta::reset",
    "reasoning_delta:the kettle matters",
    "content_delta:kettle first",
  ]);
});

test("a restart from the provider layer (stream→chat fallback) resets only what was streamed", async () => {
  h.llm.enqueue({
    partial: { reasoning: "half a thought" },
    restart: true,
    text: "answer",
    reasoning: "whole thought",
  });
  await h.agent.injectInputSync("cli", "cli", "q");
  assert.deepEqual(deltas(), [
    "reasoning_delta:half a thought",
    "reasoning_delta::reset",
    "reasoning_delta:whole thought",
    "content_delta:answer",
  ]);
});
