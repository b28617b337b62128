import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import type { AgentEvent } from "@homeagent/sdk";

import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { waitFor } from "../../test/fixtures/wait.js";

let h: Harness;
beforeEach(() => {
  h = startAgent();
});
afterEach(() => h.close());

test("the model's tool call runs and its result reaches the next LLM request", async () => {
  h.agent.tools.register("demo", { name: "add", description: "add", parameters: { type: "object" } }, (a) =>
    String(Number(a.a) + Number(a.b)),
  );
  const events: AgentEvent[] = [];
  h.agent.bus.subscribe("*", (e) => void events.push(e));
  h.llm.enqueue({ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] }, { text: "5" });
  const reply = await h.agent.injectInputSync("test", "test", "2+3?");
  assert.equal(reply.content, "5");
  const second = h.llm.requests[1].messages;
  const assistant = second.find((m) => m.role === "assistant");
  assert.equal(assistant?.tool_calls?.[0].function.name, "add");
  const tool = second.find((m) => m.role === "tool");
  assert.equal(tool?.content, "5");
  assert.equal(tool?.tool_call_id, assistant?.tool_calls?.[0].id);
  const types = events.map((e) => e.type);
  assert.deepEqual(
    types.filter((t) => t !== "content_delta" && t !== "stage"),
    ["raw_input", "agent_llm_chain", "tool_call", "tool_call", "agent_llm_chain", "agent_output"],
  );
  assert.ok(events.every((e) => e.payload.requestId === reply.requestId));
});

test("core.agent.max_tool_turns ends an endless tool loop with a clear message", async () => {
  h.settings.turns = 3;
  h.agent.tools.register("demo", { name: "again", description: "", parameters: { type: "object" } }, () => "more");
  h.llm.fallback = () => ({ toolCalls: [{ name: "again" }] });
  const reply = await h.agent.injectInputSync("test", "test", "loop");
  assert.equal(h.llm.requests.length, 3);
  assert.match(reply.content, /exceeded 3 turns \(core\.agent\.max_tool_turns\)/);
});

test("unknown tools, invalid JSON arguments, bad arguments and throwing tools become readable results", async () => {
  h.agent.tools.register(
    "demo",
    {
      name: "strict",
      description: "",
      parameters: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    },
    () => "fine",
  );
  h.agent.tools.register("demo", { name: "crash", description: "", parameters: { type: "object" } }, () => {
    throw new Error("disk on fire");
  });
  h.llm.enqueue(
    {
      toolCalls: [
        { name: "nope" },
        { name: "strict", raw: "{n: 1" },
        { name: "strict", arguments: { n: "one" } },
        { name: "strict", arguments: {} },
        { name: "crash" },
      ],
    },
    { text: "recovered" },
  );
  const reply = await h.agent.injectInputSync("test", "test", "go");
  assert.equal(reply.content, "recovered");
  const results = h.llm.requests[1].messages.filter((m) => m.role === "tool").map((m) => m.content);
  assert.match(results[0], /unknown tool "nope"\. Available tools: .*strict/);
  assert.match(results[1], /not a valid JSON object: \{n: 1/);
  assert.match(results[2], /"n" must be integer, got string/);
  assert.match(results[3], /missing required "n"/);
  assert.match(results[4], /tool crash failed: disk on fire/);
});

test("duplicate tool names are refused, and a plugin's tools can be removed at once", () => {
  const def = { name: "t1", description: "", parameters: { type: "object" } };
  h.agent.tools.register("a", def, () => 1);
  assert.throws(() => h.agent.tools.register("b", def, () => 2), /already registered by plugin "a"/);
  h.agent.tools.register("a", { ...def, name: "t2" }, () => 1);
  assert.equal(h.agent.tools.unregisterPlugin("a"), 2);
  assert.equal(h.agent.tools.get("t1"), undefined);
});

test("output channels become output_send__ tools whose result is the handler's own", async () => {
  const sent: string[] = [];
  h.agent.outputs.register("chat", "qq", ["text"], "QQ messages", (m) => {
    if (m.payload === "fail") throw new Error("QQ offline");
    sent.push(m.payload);
    return "delivered";
  });
  const names = h.agent.tools.names();
  for (const n of ["output_send__qq", "output_send__qq_help", "output_list_channels"]) assert.ok(names.includes(n));
  assert.throws(() =>
    h.agent.tools.register("x", { name: "output_send__qq", description: "", parameters: {} }, () => 0),
  );
  h.llm.enqueue(
    {
      toolCalls: [
        { name: "output_send__qq", arguments: { payload: "hi" } },
        { name: "output_send__qq", arguments: { payload: "fail" } },
      ],
    },
    { text: "sent" },
  );
  await h.agent.injectInputSync("test", "test", "tell qq");
  assert.deepEqual(sent, ["hi"]);
  const results = h.llm.requests[1].messages.filter((m) => m.role === "tool").map((m) => m.content);
  assert.equal(results[0], "delivered");
  assert.match(results[1], /QQ offline/);
  assert.equal(h.agent.outputs.unregisterPlugin("chat"), 1);
  assert.ok(!h.agent.tools.names().includes("output_send__qq"));
});

test("an async input's reply goes to the input's own output channel", async () => {
  const got: string[] = [];
  h.agent.outputs.register("p", "timer", ["text"], "timer", (m) => void got.push(m.payload));
  h.llm.enqueue({ text: "tick reply" });
  h.agent.injectInput("timer", "timer", "tick");
  await waitFor(() => got.length === 1);
  assert.deepEqual(got, ["tick reply"]);
});

test("an interrupt cancels the LLM call in flight and its text reaches the next request", async () => {
  h.llm.enqueue({ text: "slow", delayMs: 5000 }, { text: "noted" });
  const started = Date.now();
  const pending = h.agent.injectInputSync("test", "test", "write an essay");
  await waitFor(() => h.llm.requests.length === 1);
  h.agent.injectInterrupt("timer", "timer", "the kettle is boiling");
  const reply = await pending;
  assert.ok(Date.now() - started < 2000, "the slow call was cancelled");
  assert.equal(reply.content, "noted");
  const msgs = h.llm.requests[1].messages;
  assert.deepEqual(msgs.at(-1), { role: "system", content: "[打断消息][来源:timer] the kettle is boiling" });
});

test("an interrupt with nothing running becomes a new input", async () => {
  const got: string[] = [];
  h.agent.outputs.register("p", "timer", ["text"], "timer", (m) => void got.push(m.payload));
  h.llm.enqueue({ text: "handled" });
  h.agent.injectInterrupt("timer", "timer", "wake up");
  await waitFor(() => got.length === 1);
  assert.equal(h.llm.requests[0].messages.at(-1)?.content, "wake up");
});

test("inputs are processed one at a time, in order", async () => {
  h.llm.enqueue({ text: "a", delayMs: 50 }, { text: "b" }, { text: "c" });
  const replies = await Promise.all(["1", "2", "3"].map((t) => h.agent.injectInputSync("test", "test", t)));
  assert.deepEqual(
    replies.map((r) => r.content),
    ["a", "b", "c"],
  );
  assert.deepEqual(
    h.llm.requests.map((r) => r.messages.at(-1)?.content),
    ["1", "2", "3"],
  );
});

test("the timeline of earlier exchanges is in the prompt, and a failing LLM yields a reply that says why", async () => {
  h.llm.enqueue({ text: "first answer" }, { error: new Error("all 1 LLM sources failed: a: HTTP 500") });
  await h.agent.injectInputSync("cli", "cli", "first question");
  const reply = await h.agent.injectInputSync("cli", "cli", "second");
  assert.match(reply.content, /all 1 LLM sources failed/);
  assert.equal(reply.error, reply.content);
  const timeline = h.llm.requests[1].messages.find((m) => m.content.startsWith("【对话时序"));
  assert.match(timeline?.content ?? "", /cli: first question[\s\S]*you: first answer/);
});

test("empty input is refused", async () => {
  await assert.rejects(h.agent.injectInputSync("cli", "cli", "   "), /empty input/);
});

test("cancelling a running input stops its LLM call and answers at once", async () => {
  h.llm.enqueue({ text: "slow", delayMs: 5000 });
  const cancel = new AbortController();
  const started = Date.now();
  const pending = h.agent.injectInputSync("cli", "cli", "long job", { signal: cancel.signal });
  await waitFor(() => h.llm.requests.length === 1);
  cancel.abort(new Error("cancelled: the client went away"));
  const reply = await pending;
  assert.ok(Date.now() - started < 2000);
  assert.equal(reply.error, "cancelled: the client went away");
  assert.equal(h.llm.requests.length, 1, "not retried as if it were an interrupt");
  h.llm.enqueue({ text: "next" });
  assert.equal((await h.agent.injectInputSync("cli", "cli", "still there?")).content, "next");
});

test("cancelling a queued input drops it before it runs; a running tool sees the signal", async () => {
  let toolSignal: AbortSignal | undefined;
  h.agent.tools.register("demo", { name: "wait", description: "", parameters: { type: "object" } }, (_a, ctx) => {
    toolSignal = ctx.signal;
    return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped")));
  });
  h.llm.enqueue({ toolCalls: [{ name: "wait" }] });
  const first = new AbortController();
  const running = h.agent.injectInputSync("cli", "cli", "first", { signal: first.signal });
  const second = new AbortController();
  const queued = h.agent.injectInputSync("cli", "cli", "second", { signal: second.signal });
  await waitFor(() => toolSignal !== undefined);
  second.abort();
  assert.match((await queued).error ?? "", /cancelled/);
  first.abort(new Error("stop"));
  assert.equal((await running).error, "stop");
  assert.equal(h.llm.requests.length, 1, "neither the rest of the loop nor the queued input reached the LLM");
});

test("a reply with 20,000 tool calls runs core.agent.max_tool_calls_per_round (32) of them and says so once", async () => {
  let runs = 0;
  h.agent.tools.register("demo", { name: "tick", description: "", parameters: { type: "object" } }, () => {
    runs++;
    return "ticked";
  });
  const ends: AgentEvent[] = [];
  h.agent.bus.subscribe("tool_call", (e) => void (e.payload.phase === "end" && ends.push(e)));
  h.llm.enqueue({ toolCalls: Array.from({ length: 20_000 }, (_, i) => ({ name: "tick", arguments: { i } })) });
  h.llm.enqueue({ text: "done" });
  const reply = await h.agent.injectInputSync("test", "test", "tick a lot");
  assert.equal(reply.content, "done");
  assert.equal(runs, 32);
  const next = h.llm.requests[1].messages;
  const calls = next.find((m) => m.role === "assistant")?.tool_calls ?? [];
  const results = next.filter((m) => m.role === "tool");
  assert.equal(calls.length, 33, "the 32 that ran and one that stands for the rest");
  assert.deepEqual(
    results.map((r) => r.tool_call_id),
    calls.map((c) => c.id),
    "every call in the transcript has its result",
  );
  assert.equal(calls[32].function.arguments, "{}", "the stand-in carries no arguments");
  assert.match(
    results[32].content,
    /^error: 19968 tool calls over the limit of 32 were not run \(core\.agent\.max_tool_calls_per_round\)/,
  );
  assert.match(results[32].content, /19968 个工具调用超出每轮 32 个的上限，未执行/);
  assert.equal(ends.length, 33, "one event for the calls not run, not 19,968");
  assert.equal(ends[32].payload.status, "denied");
});

test("core.agent.max_tool_calls_per_round is read every round", async () => {
  h.settings.callsPerRound = 2;
  let runs = 0;
  h.agent.tools.register("demo", { name: "tick", description: "", parameters: { type: "object" } }, () => {
    runs++;
    return "ticked";
  });
  h.llm.enqueue({ toolCalls: [{ name: "tick" }, { name: "tick" }, { name: "tick" }] }, { text: "done" });
  await h.agent.injectInputSync("test", "test", "three");
  assert.equal(runs, 2);
  const last = h.llm.requests[1].messages.filter((m) => m.role === "tool").at(-1);
  assert.match(
    last?.content ?? "",
    /^error: 1 tool call over the limit of 2 was not run \(core\.agent\.max_tool_calls_per_round\)/,
  );
});
