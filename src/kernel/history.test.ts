/**
 * InjectOptions.history: a client's own conversation (the OpenAI endpoint's `messages`) is the turn's
 * timeline as real chat messages, its system messages join the prompt as context, and one over its limits
 * is refused before anything is queued.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import type { ContextMessage } from "@homeagent/sdk";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { StubMemory } from "../../test/fixtures/memory-stub.js";
import { HomeAgentError } from "../util/errors.js";
import { messageTokens } from "./budget.js";
import { HISTORY_LIMITS } from "./history.js";

let h: Harness;
let memory: StubMemory;
const warnings: string[] = [];
beforeEach(() => {
  warnings.length = 0;
  memory = new StubMemory();
  h = startAgent({ memory, log: { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} } });
});
afterEach(() => h.close());

const HISTORY: ContextMessage[] = [
  { role: "system", content: "Answer like a pirate." },
  { role: "user", content: "What is the capital of France?" },
  { role: "assistant", content: "Arr, Paris it be." },
  { role: "user", content: "And of Spain?" },
  { role: "assistant", content: "Madrid, matey." },
];

const section = (name: string) => h.agent.lastContext()?.sections.find((s) => s.name === name);

test("the history is the timeline as chat messages in order, its system messages are context", async () => {
  await h.context.append({ ts: Date.now(), kind: "user", source: "cli", channel: "cli", input: "from the window" });
  await h.agent.injectInputSync("openai", "webui", "And of Italy?", { history: HISTORY });
  const sent = h.llm.requests[0].messages;
  const chat = sent.filter((m) => m.role !== "system");
  assert.deepEqual(
    chat.map((m) => [m.role, m.content]),
    [
      ["user", "What is the capital of France?"],
      ["assistant", "Arr, Paris it be."],
      ["user", "And of Spain?"],
      ["assistant", "Madrid, matey."],
      ["user", "And of Italy?"],
    ],
  );
  const pirate = sent.findIndex((m) => m.role === "system" && m.content === "Answer like a pirate.");
  assert.ok(pirate > 0, "the client's system message is sent as a system message of its own");
  assert.ok(pirate < sent.indexOf(chat[0]), "ahead of the conversation");
  assert.ok(!sent.some((m) => m.content.includes("from the window")), "the window's timeline is not shown");
  assert.ok(
    sent.some((m) => m.content.startsWith("【记忆索引】")),
    "memory sections are still built",
  );
  assert.equal(section("plugin_context")?.tokens, messageTokens(HISTORY[0]));
  assert.equal(
    section("timeline")?.tokens,
    HISTORY.slice(1).reduce((sum, m) => sum + messageTokens(m), 0),
  );
});

test("an empty history means no earlier turns: the window's timeline is not shown", async () => {
  await h.context.append({ ts: Date.now(), kind: "user", source: "cli", channel: "cli", input: "from the window" });
  await h.agent.injectInputSync("openai", "webui", "hello", { history: [] });
  assert.ok(!h.llm.requests[0].messages.some((m) => m.content.includes("from the window")));
  assert.equal(section("timeline")?.tokens, 0);
});

test("a history longer than the timeline's share keeps the newest messages and says so once", async () => {
  h.llm.window = 4096;
  const long: ContextMessage[] = Array.from({ length: 200 }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: `message number ${i} ${"word ".repeat(20)}`,
  }));
  await h.agent.injectInputSync("openai", "webui", "last", { history: long });
  await h.agent.injectInputSync("openai", "webui", "again", { history: long });
  const chat = h.llm.requests[0].messages.filter((m) => m.role !== "system").slice(0, -1);
  assert.ok(chat.length > 0 && chat.length < long.length, `kept ${chat.length} of ${long.length}`);
  assert.deepEqual(
    chat.map((m) => m.content),
    long.slice(long.length - chat.length).map((m) => m.content),
    "the newest, in order",
  );
  const timeline = section("timeline");
  assert.ok(timeline && timeline.tokens <= timeline.budget, JSON.stringify(timeline));
  assert.equal(warnings.filter((w) => /a client's conversation of 200 messages/.test(w)).length, 1);
});

test("a turn with history is recorded as usual: its input and reply join the window and memory", async () => {
  h.llm.enqueue({ text: "Roma, matey." });
  const before = h.context.size();
  await h.agent.injectInputSync("openai", "webui", "And of Italy?", { history: HISTORY });
  assert.ok(h.llm.requests[0].messages.some((m) => m.role === "assistant" && m.content === "Arr, Paris it be."));
  const window = await h.context.window();
  assert.equal(window.length, before + 1);
  assert.deepEqual([window.at(-1)?.input, window.at(-1)?.response], ["And of Italy?", "Roma, matey."]);
  assert.equal(h.context.prunes.length, 1);
  assert.equal(memory.done.length, 1);
  assert.equal(memory.done[0].event?.input, "And of Italy?");
});

const refusals: Array<[string, unknown, RegExp]> = [
  ["not an array", { role: "user", content: "hi" }, /history must be an array/],
  [
    "too many messages",
    Array.from({ length: HISTORY_LIMITS.messages + 1 }, () => ({ role: "user", content: "x" })),
    /history has 257 messages, at most 256/,
  ],
  ["a bad role", [{ role: "tool", content: "x" }], /history\[0\]\.role must be "system", "user" or "assistant"/],
  ["a missing role", [{ content: "x" }], /history\[0\]\.role must be/],
  [
    "content that is not text",
    [
      { role: "user", content: "ok" },
      { role: "user", content: [{ type: "text", text: "x" }] },
    ],
    /history\[1\]\.content must be a string/,
  ],
  ["a message that is not an object", ["hello"], /history\[0\] must be an object/],
  [
    "more than 256 KiB of text",
    [
      { role: "user", content: "é".repeat(64 * 1024) },
      { role: "assistant", content: `${"é".repeat(64 * 1024)}x` },
    ],
    /history holds 262145 bytes of text, at most 262144/,
  ],
];

for (const [what, history, message] of refusals) {
  test(`a history with ${what} is refused with invalid_history: thrown by injectInput, rejected by injectInputSync`, async () => {
    const opts = { history: history as ContextMessage[] };
    const expected = (err: unknown) =>
      err instanceof HomeAgentError && err.code === "invalid_history" && message.test(err.message);
    assert.throws(() => h.agent.injectInput("openai", "webui", "hi", opts), expected);
    await assert.rejects(h.agent.injectInputSync("openai", "webui", "hi", opts), expected);
    assert.equal(h.agent.status().queued, 0);
    assert.equal(h.context.size(), 0);
    assert.equal(h.llm.requests.length, 0);
  });
}

test("a history at its limits is taken, and a change to the caller's array after queueing is not seen", async () => {
  const history: ContextMessage[] = Array.from({ length: HISTORY_LIMITS.messages }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: "a".repeat(1024),
  }));
  const pending = h.agent.injectInputSync("openai", "webui", "hi", { history });
  history.length = 0;
  const reply = await pending;
  assert.equal(reply.error, undefined);
  assert.ok(h.llm.requests[0].messages.filter((m) => m.role === "user").length > 1);
});
