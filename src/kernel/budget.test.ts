import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, test } from "node:test";
import type { AgentEvent } from "@homeagent/sdk";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { ProviderError } from "../llm/provider.js";
import {
  DEFAULT_CONTEXT_WINDOW,
  estimateTokens,
  fitToBudget,
  newestThatFit,
  pruneForRetry,
  requestBudget,
  tagTimeline,
  totalTokens,
} from "./budget.js";
import type { ChatMessage } from "./llm-spec.js";
import { TIMELINE_HEADER } from "./prompt.js";

describe("token estimate", () => {
  test("about one token per CJK character and per four Latin characters", () => {
    assert.equal(estimateTokens(""), 0);
    assert.equal(estimateTokens("abcdefgh"), 2);
    assert.equal(estimateTokens("你好世界"), 4);
    assert.equal(estimateTokens("こんにちは"), 5);
    assert.equal(estimateTokens("한국어"), 3);
    assert.equal(estimateTokens("今天 weather 好"), 3 + Math.ceil(" weather ".length / 4));
  });
  test("budget is 80 % of the window; unknown windows assume 32k", () => {
    assert.equal(requestBudget(10_000), 8000);
    assert.equal(requestBudget(0), Math.floor(0.8 * DEFAULT_CONTEXT_WINDOW));
  });
  test("newestThatFit keeps the newest items that fit, in order", () => {
    assert.deepEqual(
      newestThatFit([5, 1, 2, 3], 6, (n) => n),
      [1, 2, 3],
    );
    assert.deepEqual(
      newestThatFit([1, 9], 5, (n) => n),
      [],
    );
  });
});

describe("shrinking a request", () => {
  const big = "x".repeat(4000); // ~1000 tokens
  const round = (id: string): ChatMessage[] => [
    {
      role: "assistant",
      content: "",
      tool_calls: [{ id, type: "function", function: { name: "t", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: id, name: "t", content: big },
  ];
  const request = (): ChatMessage[] => [
    { role: "system", content: "prompt" },
    tagTimeline({ role: "system", content: `${TIMELINE_HEADER}\n${big}` }),
    { role: "system", content: `${TIMELINE_HEADER} copied by a plugin: not the timeline\n${big}` },
    { role: "user", content: "go" },
    ...round("1"),
    ...round("2"),
    ...round("3"),
  ];

  test("drops tool results oldest first, never the latest round's, then the timeline", () => {
    const messages = request();
    assert.equal(fitToBudget(messages, totalTokens(messages)), false);
    assert.equal(fitToBudget(messages, totalTokens(messages) - 500), true);
    assert.deepEqual(
      messages.filter((m) => m.role === "tool").map((m) => m.content === big),
      [false, true, true],
    );
    assert.ok(
      messages.some((m) => m.content.startsWith(`${TIMELINE_HEADER}\n`)),
      "timeline kept while results suffice",
    );
    fitToBudget(messages, 1500);
    assert.deepEqual(
      messages.filter((m) => m.role === "tool").map((m) => m.content === big),
      [false, false, true],
    );
    assert.equal(
      messages.some((m) => m.content.startsWith(`${TIMELINE_HEADER}\n`)),
      false,
    );
    assert.ok(
      messages.some((m) => m.content.includes("copied by a plugin")),
      "only the tagged message is the timeline",
    );
  });

  test("pruneForRetry drops the timeline and older results at once; nothing left → false", () => {
    const messages = request();
    assert.equal(pruneForRetry(messages), true);
    assert.equal(
      messages.some((m) => m.content.startsWith(`${TIMELINE_HEADER}\n`)),
      false,
    );
    assert.ok(
      messages.some((m) => m.content.includes("copied by a plugin")),
      "only the tagged message is the timeline",
    );
    assert.deepEqual(
      messages.filter((m) => m.role === "tool").map((m) => m.content === big),
      [false, false, true],
    );
    assert.equal(pruneForRetry(messages), false);
  });
});

describe("the kernel keeps requests within the source's window", () => {
  let h: Harness;
  beforeEach(() => {
    h = startAgent();
  });
  afterEach(() => h.close());

  test("the timeline is trimmed newest-first to the budget", async () => {
    for (let i = 0; i < 12; i++) {
      await h.agent.injectInputSync("test", "test", `message ${i} ${"词".repeat(200)}`);
    }
    h.llm.window = 2000; // budget 1600: the system prompt, the input and a few ~200-token rows
    await h.agent.injectInputSync("test", "test", "latest question");
    const req = h.llm.requests.at(-1);
    assert.ok(req);
    const timeline = req.messages.find((m) => m.content.startsWith(TIMELINE_HEADER))?.content ?? "";
    const rows = [...timeline.matchAll(/message (\d+)/g)].map((m) => Number(m[1]));
    assert.ok(rows.length >= 2 && rows.length < 12, `kept ${rows.length} rows`);
    assert.deepEqual(
      rows,
      rows.map((_, i) => 12 - rows.length + i),
      "the newest rows, oldest first",
    );
    assert.ok(totalTokens(req.messages) <= 1600, `request of ${totalTokens(req.messages)} tokens`);
    h.llm.window = 0;
    await h.agent.injectInputSync("test", "test", "again");
    const full = h.llm.requests.at(-1)?.messages.find((m) => m.content.startsWith(TIMELINE_HEADER))?.content ?? "";
    assert.ok([...full.matchAll(/message \d+/g)].length > rows.length, "an unknown window assumes 32k");
  });

  test("pre_action context messages get their share when the timeline competes, and unused budget when not", async () => {
    h.llm.window = 2000;
    const big = (label: string) => ({ role: "system" as const, content: `${label}: ${"忆".repeat(300)}` });
    let extra = [big("only"), big("plenty"), { role: "system" as const, content: "small note" }];
    h.agent.stages.register("memory", "pre_action", (ctx) => {
      ctx.contextMsgs.push(...extra);
    });
    await h.agent.injectInputSync("test", "test", "hi");
    const alone = h.llm.requests[0].messages.map((m) => m.content);
    assert.ok(
      alone.some((c) => c.startsWith("only:")) &&
        alone.some((c) => c.startsWith("plenty:")) &&
        alone.includes("small note"),
      "with no timeline the plugins' messages take the room the timeline does not need",
    );

    for (let i = 0; i < 12; i++) await h.agent.injectInputSync("test", "test", `message ${i} ${"词".repeat(200)}`);
    extra = [big("first"), big("second"), big("third")];
    await h.agent.injectInputSync("test", "test", "latest");
    const req = h.llm.requests.at(-1)?.messages ?? [];
    const report = h.agent.lastContext();
    assert.ok(report);
    const section = (name: string) => report.sections.find((s) => s.name === name);
    const plugin = section("plugin_context");
    const timeline = section("timeline");
    assert.ok(plugin && timeline);
    assert.ok(plugin.tokens <= plugin.budget && timeline.tokens <= timeline.budget);
    assert.ok(
      req.some((m) => m.content.startsWith("first:")),
      "the plugins' share holds one big message",
    );
    assert.ok(!req.some((m) => m.content.startsWith("third:")), "but not all three: the timeline keeps its share");
    assert.ok(timeline.tokens > plugin.tokens, `timeline ${timeline.tokens} vs plugins ${plugin.tokens}`);
    assert.ok(totalTokens(req) <= 1600, `request of ${totalTokens(req)} tokens`);
  });

  test("a context-length error prunes and asks once more", async () => {
    h.agent.tools.register("demo", { name: "dump", description: "", parameters: { type: "object" } }, () =>
      "y".repeat(2000),
    );
    const events: AgentEvent[] = [];
    h.agent.bus.subscribe("system", (e) => void events.push(e));
    await h.agent.injectInputSync("test", "test", "earlier talk");
    h.llm.enqueue(
      { toolCalls: [{ name: "dump" }] },
      { toolCalls: [{ name: "dump" }] },
      { error: new ProviderError("HTTP 400: maximum context length exceeded", "context_length", { status: 400 }) },
      { text: "fits now" },
    );
    const reply = await h.agent.injectInputSync("test", "test", "dump twice");
    assert.equal(reply.content, "fits now");
    const retry = h.llm.requests.at(-1)?.messages ?? [];
    assert.equal(
      retry.some((m) => m.content.startsWith(TIMELINE_HEADER)),
      false,
    );
    assert.deepEqual(
      retry.filter((m) => m.role === "tool").map((m) => m.content.startsWith("[earlier tool result dropped")),
      [true, false],
    );
    assert.equal(events.filter((e) => e.payload.kind === "context_pruned").length, 1);
  });

  test("a second context-length error is reported, not retried forever", async () => {
    await h.agent.injectInputSync("test", "test", "earlier talk");
    const tooLong = () =>
      new ProviderError("HTTP 400: maximum context length exceeded", "context_length", { status: 400 });
    h.llm.enqueue({ error: tooLong() }, { error: tooLong() });
    const reply = await h.agent.injectInputSync("test", "test", "hi");
    assert.match(reply.error ?? "", /maximum context length/);
    assert.equal(h.llm.requests.length, 1 + 2);
  });
});
