/**
 * Tool definitions are a budgeted prompt section. With 60 tools and an 8k window the definitions alone
 * would overflow the request: the kernel offers a core set plus tool_search, every request stays within
 * the budget, and memory still gets at least its floor.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import type { AgentEvent, ToolDef } from "@homeagent/sdk";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { StubMemory } from "../../test/fixtures/memory-stub.js";
import { estimateTokens, messageTokens, requestBudget, totalTokens } from "./budget.js";
import { floorOf } from "./sections.js";
import { plainWords } from "./tool-search.js";

let h: Harness;
let memory: StubMemory;
const warnings: string[] = [];
beforeEach(() => {
  memory = new StubMemory();
  warnings.length = 0;
  h = startAgent({ memory, log: { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} } });
});
afterEach(() => h.close());

const TOPICS = ["calendar", "lights", "music", "shopping", "mail", "notes", "files", "timer", "news", "photos"];

function manyTools(n: number): void {
  for (let i = 0; i < n; i++) {
    const topic = i === 57 ? "weather forecast" : `${TOPICS[i % TOPICS.length]} helper ${i}`;
    const def: ToolDef = {
      name: i === 57 ? "weather_forecast" : `tool_${i}`,
      description: `Handles ${topic} requests for the user: reads, changes and summarises what the ${topic} service holds, with paging and filters for long lists.`,
      parameters: {
        type: "object",
        properties: {
          query: { type: "string", description: "What to look for, in the user's words." },
          limit: { type: "integer", description: "How many results at most." },
          since: { type: "string", description: "ISO date: only entries after it." },
        },
        required: ["query"],
      },
    };
    h.agent.tools.register("many", def, (args) => `${def.name} did ${String(args.query)}`);
  }
}

const toolNames = (i: number) => (h.llm.requests[i].tools ?? []).map((t) => t.function.name);
const requestTokens = (i: number) =>
  totalTokens(h.llm.requests[i].messages) + estimateTokens(JSON.stringify(h.llm.requests[i].tools ?? []));

test("60 tools in an 8k window: every request within budget, memory at its floor or more, tool_search loads the rest", async () => {
  manyTools(60);
  h.llm.window = 8192;
  const events: AgentEvent[] = [];
  h.agent.bus.subscribe("system", (e) => void events.push(e));
  for (let i = 0; i < 5; i++) await h.agent.injectInputSync("cli", "cli", `earlier message ${i} ${"话".repeat(150)}`);
  h.llm.enqueue(
    { toolCalls: [{ name: "tool_search", arguments: { query: "weather forecast" } }] },
    { toolCalls: [{ name: "weather_forecast", arguments: { query: "Beijing tomorrow" } }] },
    { text: "sunny" },
  );
  const reply = await h.agent.injectInputSync("cli", "cli", "what's the weather tomorrow?");
  assert.equal(reply.content, "sunny");

  const budget = requestBudget(8192);
  for (let i = 0; i < h.llm.requests.length; i++) {
    assert.ok(requestTokens(i) <= budget, `request ${i} has ${requestTokens(i)} tokens, budget ${budget}`);
  }
  const first = h.llm.requests.length - 3;
  const offered = toolNames(first);
  assert.ok(offered.includes("tool_search"));
  assert.ok(!offered.includes("weather_forecast"), "not in the core set");
  assert.ok(offered.length < 30, `offered ${offered.length}`);
  assert.ok(toolNames(first + 1).includes("weather_forecast"), "tool_search loaded the definition for the next round");
  const searchResult = h.llm.requests[first + 1].messages.find((m) => m.role === "tool")?.content ?? "";
  assert.match(searchResult, /Loaded for this turn[\s\S]*weather_forecast: Handles weather forecast/);
  const used = h.llm.requests[first + 2].messages.filter((m) => m.role === "tool").map((m) => m.content);
  assert.equal(used.at(-1), "weather_forecast did Beijing tomorrow");

  const report = h.agent.lastContext();
  assert.ok(report);
  assert.equal(report.toolsOffered, offered.length, "the report counts exactly the definitions sent");
  assert.equal(report.toolsTotal, h.agent.tools.all().length - 1, "every tool but tool_search");
  const input = messageTokens({ role: "user", content: "what's the weather tomorrow?" });
  for (const name of ["memory_index", "related_memory", "timeline", "tools"]) {
    const s = report.sections.find((x) => x.name === name);
    assert.ok(s, name);
    assert.ok(s.budget >= floorOf(name as never, budget - input), `${name} got ${s.budget}`);
    assert.ok(s.tokens <= s.budget, `${name} used ${s.tokens} of ${s.budget}`);
  }
  const related = report.sections.find((x) => x.name === "related_memory");
  assert.ok(related && related.tokens >= floorOf("related_memory", budget - input) - 8, "memory filled its share");
  const build = memory.builds.at(-1);
  assert.ok(build && build.budgets.related > 0 && build.budgets.index > 0);

  assert.equal(events.filter((e) => e.payload.kind === "tools_trimmed").length, 1, "announced once per run");
  const announced = events.find((e) => e.payload.kind === "tools_trimmed");
  // Announced on the first trimmed turn, whose offer was measured against a shorter timeline.
  assert.equal(announced?.payload.total, report.toolsTotal);
  assert.ok(Number(announced?.payload.offered) > 1 && Number(announced?.payload.offered) < report.toolsTotal);
  assert.equal(warnings.filter((w) => /tool_search finds the others/.test(w)).length, 1);
});

test("tools that fit are all sent, without tool_search", async () => {
  manyTools(5);
  h.llm.enqueue({ text: "ok" });
  await h.agent.injectInputSync("cli", "cli", "hi");
  const names = toolNames(0);
  assert.equal(names.length, 6, "five tools and output_list_channels");
  assert.ok(!names.includes("tool_search"));
  assert.equal(h.agent.lastContext()?.toolsOffered, 6);
});

test("tool_search with no match lists the tools it can load", async () => {
  manyTools(60);
  h.llm.window = 8192;
  h.llm.enqueue({ toolCalls: [{ name: "tool_search", arguments: { query: "zzzz" } }] }, { text: "none" });
  await h.agent.injectInputSync("cli", "cli", "do the impossible");
  const result = h.llm.requests[1].messages.find((m) => m.role === "tool")?.content ?? "";
  assert.match(result, /No tool matches "zzzz"\. Tools you can search for: .*weather_forecast/);
});

test("the kernel's own word splitter: English words whole, each Han character a word", () => {
  assert.deepEqual(plainWords("Send the FILE_2 提醒我 tomorrow"), [
    "send",
    "the",
    "file",
    "2",
    "提",
    "醒",
    "我",
    "tomorrow",
  ]);
});

test("tool_search matches with the words the Agent is given (the daemon gives it the search tokenizer)", async () => {
  h.close();
  const asked: string[] = [];
  // A tokenizer that knows 天气预报 is one word, as jieba does; the plain splitter would make four of it.
  const words = (text: string) => {
    asked.push(text);
    return text.includes("天气预报") ? ["天气预报"] : plainWords(text);
  };
  h = startAgent({ words });
  manyTools(60);
  h.agent.tools.register(
    "zh",
    { name: "forecast_zh", description: "天气预报", parameters: { type: "object" } },
    () => "晴",
  );
  h.llm.window = 8192;
  h.llm.enqueue({ toolCalls: [{ name: "tool_search", arguments: { query: "天气预报" } }] }, { text: "ok" });
  await h.agent.injectInputSync("cli", "cli", "明天天气怎么样");
  assert.ok(asked.includes("天气预报"), "the query went through the Agent's words");
  const result = h.llm.requests[1].messages.find((m) => m.role === "tool")?.content ?? "";
  assert.match(result, /forecast_zh/);
});
