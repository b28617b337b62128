/**
 * One user turn = one context event: its input is appended before the model is asked and its reply,
 * tools and tool results join it; the query is prepared once for prune and memory; only user input
 * prunes; NoMemory and cleaners of input channels and tools reach the event.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";

import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { StubMemory } from "../../test/fixtures/memory-stub.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { cleanWith } from "./turn-events.js";

let h: Harness;
let memory: StubMemory;
const warnings: string[] = [];
beforeEach(() => {
  memory = new StubMemory();
  warnings.length = 0;
  h = startAgent({ memory, log: { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} } });
});
afterEach(() => h.close());

test("a turn is one user event: input first, then reply, tools and tool results; memory gets the finished event", async () => {
  h.agent.tools.register("demo", { name: "look", description: "look", parameters: { type: "object" } }, () => "seen");
  let during: unknown;
  h.agent.tools.register("demo", { name: "peek", description: "peek", parameters: { type: "object" } }, async () => {
    during = await h.context.window();
    return "peeked";
  });
  h.llm.enqueue({ toolCalls: [{ name: "look" }, { name: "peek" }] }, { text: "all done" });
  const reply = await h.agent.injectInputSync("cli", "cli", "look around");

  const window = await h.context.window();
  assert.equal(window.length, 1);
  const [e] = window;
  assert.equal(e.kind, "user");
  assert.equal(e.input, "look around");
  assert.equal(e.response, "all done");
  assert.deepEqual(e.toolsUsed, ["look", "peek"]);
  assert.deepEqual(e.toolResults, [
    { name: "look", content: "seen" },
    { name: "peek", content: "peeked" },
  ]);
  assert.equal(e.noMemory, false);
  const seen = during as Array<{ input: string; response: string }>;
  assert.deepEqual(
    seen.map((x) => [x.input, x.response]),
    [["look around", ""]],
    "the input was stored before the tools ran",
  );
  assert.equal(memory.done.length, 1);
  assert.equal(memory.done[0].requestId, reply.requestId);
  assert.deepEqual(memory.done[0].event, e);
});

test("the query is prepared once and used for both prune and the memory sections", async () => {
  await h.agent.injectInputSync("cli", "cli", "where is my umbrella?");
  assert.equal(memory.prepared.length, 1);
  assert.equal(memory.builds.length, 1);
  assert.equal(memory.builds[0].q, memory.prepared[0], "the same prepared query object");
  assert.deepEqual(h.context.prunes, [{ query: "where is my umbrella?", keep: 29 }]);
  const ids = (await h.context.window()).map((e) => e.id);
  assert.deepEqual([...memory.builds[0].exclude], ids, "memory leaves out what the window already shows");
});

test("a failed turn marks its input unanswered and memory still hears of it", async () => {
  h.llm.enqueue({ error: new Error("all 1 LLM sources failed") });
  await h.agent.injectInputSync("cli", "cli", "hello?");
  const [e] = await h.context.window();
  assert.equal(e.response, "");
  assert.equal(e.unanswered, "the reply failed with an error");
  assert.equal(memory.done[0].event?.unanswered, "the reply failed with an error");
});

test("only user input prunes: interrupts and self-tasks do not", async () => {
  h.settings.contextSize = 2;
  await h.agent.injectInputSync("cli", "cli", "one");
  assert.equal(h.context.prunes.length, 1);
  h.agent.outputs.register("p", "timer", ["text"], "timer", () => {});
  h.agent.injectInterrupt("timer", "timer", "ring");
  await waitFor(() => memory.done.length === 2, "the interrupt's turn");
  await h.agent.injectSelf("consolidate", { tools: [] });
  assert.equal(h.context.prunes.length, 1, "neither the interrupt nor the self-task pruned");
  const window = await h.context.window();
  assert.deepEqual(
    window.map((e) => [e.input, e.noMemory]),
    [
      ["one", false],
      ["ring", true],
    ],
    "the interrupt is kept verbatim but NoMemory; the self-task wrote no event",
  );
  await h.agent.injectInputSync("cli", "cli", "two");
  assert.equal(h.context.size(), 2, "the next user input prunes back to max_context_size");
});

test("an input channel's NoMemory and cleaner reach the event; the stored input stays raw", async () => {
  h.agent.inputs.register("term", "terminal", { noMemory: true });
  h.agent.inputs.register("chat", "qq", { cleaner: (text) => text.replace(/\[CQ:[^\]]*\]/g, "").trim() });
  await h.agent.injectInputSync("terminal", "terminal", "$ ls -la");
  await h.agent.injectInputSync("qq", "qq", "[CQ:at,qq=1] remind me at 9");
  await h.agent.injectInputSync("qq", "qq", "plain text");
  const [term, qq, plain] = await h.context.window();
  assert.equal(term.noMemory, true);
  assert.equal(term.cleanInput, undefined);
  assert.equal(qq.input, "[CQ:at,qq=1] remind me at 9");
  assert.equal(qq.cleanInput, "remind me at 9");
  assert.equal(qq.noMemory, false);
  assert.equal(plain.cleanInput, undefined, "only when the cleaner changed something");
  assert.equal(memory.prepared[1].text, "remind me at 9", "memory computes with the cleaned text");
  assert.equal(h.llm.requests[1].messages.at(-1)?.content, "[CQ:at,qq=1] remind me at 9", "the model reads it raw");
  assert.throws(() => h.agent.inputs.register("other", "qq"), /already registered by plugin "chat"/);
});

test("a tool's NoMemory and cleaner reach its result record; a failing cleaner keeps the raw output", async () => {
  h.agent.tools.register(
    "demo",
    { name: "secret", description: "", parameters: { type: "object" }, noMemory: true },
    () => "token=abc",
  );
  h.agent.tools.register(
    "demo",
    { name: "page", description: "", parameters: { type: "object" }, cleaner: (out) => out.replace(/<[^>]+>/g, "") },
    () => "<p>hello</p>",
  );
  h.agent.tools.register(
    "demo",
    {
      name: "broken",
      description: "",
      parameters: { type: "object" },
      cleaner: () => {
        throw new Error("regex exploded");
      },
    },
    () => "raw stays",
  );
  h.llm.enqueue({ toolCalls: [{ name: "secret" }, { name: "page" }, { name: "broken" }] }, { text: "ok" });
  await h.agent.injectInputSync("cli", "cli", "go");
  const [e] = await h.context.window();
  assert.deepEqual(e.toolResults, [
    { name: "secret", content: "token=abc", noMemory: true },
    { name: "page", content: "<p>hello</p>", clean: "hello" },
    { name: "broken", content: "raw stays" },
  ]);
  assert.equal(
    h.llm.requests[1].messages.filter((m) => m.role === "tool")[1].content,
    "<p>hello</p>",
    "the model reads the raw output",
  );
  assert.ok(warnings.some((w) => /cleaner of tool "broken" failed, its raw output is kept: regex exploded/.test(w)));
});

test("async cleaners of input channels and tools are awaited", async () => {
  h.agent.inputs.register("chat", "qq", { cleaner: async (text) => text.replace(/\[CQ:[^\]]*\]/g, "").trim() });
  h.agent.tools.register(
    "demo",
    {
      name: "page",
      description: "",
      parameters: { type: "object" },
      cleaner: async (out) => out.replace(/<[^>]+>/g, ""),
    },
    () => "<p>hello</p>",
  );
  h.llm.enqueue({ toolCalls: [{ name: "page" }] }, { text: "ok" });
  await h.agent.injectInputSync("qq", "qq", "[CQ:at,qq=1] read the page");
  const [e] = await h.context.window();
  assert.equal(e.cleanInput, "read the page");
  assert.deepEqual(e.toolResults, [{ name: "page", content: "<p>hello</p>", clean: "hello" }]);
  assert.equal(memory.prepared[0].text, "read the page", "memory computes with the awaited text");
});

test("a cleaner that never settles costs its cleaning after the bound, not the turn", async () => {
  const errors: unknown[] = [];
  const started = Date.now();
  const out = await cleanWith(
    () => new Promise<string>(() => {}),
    "raw text",
    (err) => errors.push(err),
    50,
  );
  assert.equal(out, undefined, "the raw text is used");
  assert.ok(Date.now() - started < 1000);
  assert.match(String(errors[0]), /did not finish within 50 ms/);
});

test("a memory that fails to build costs its sections, not the turn", async () => {
  memory.failBuild = new Error("index closed");
  h.llm.enqueue({ text: "still here" });
  const reply = await h.agent.injectInputSync("cli", "cli", "hi");
  assert.equal(reply.content, "still here");
  assert.ok(warnings.some((w) => /memory sections could not be built.*index closed/.test(w)));
});
