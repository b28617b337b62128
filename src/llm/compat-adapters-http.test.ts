/**
 * The OpenAI-compatible adapters over real HTTP against the fake OpenAI-wire server: a streamed tool call
 * followed by the tool round, and a plain chat, each through LuaAdaptedProvider and the ProviderManager.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { type FakeLLM, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import type { ChatMessage, StreamChunk } from "../kernel/llm-spec.js";
import { LuaAdaptedProvider } from "./lua-provider.js";
import { ProviderManager } from "./manager.js";

const TOOLS = [
  {
    type: "function" as const,
    function: { name: "add", description: "adds", parameters: { type: "object", properties: {} } },
  },
];

for (const name of ["deepseek", "mistral", "groq", "github", "server"]) {
  describe(`${name} adapter over HTTP`, () => {
    let fake: FakeLLM;
    let llm: ProviderManager;
    before(async () => {
      fake = await startFakeLLM();
      llm = new ProviderManager({ retryDelayMs: 10 });
      const provider = new LuaAdaptedProvider({
        sourceName: `${name}-src`,
        adapterName: name,
        adapterSource: readFileSync(new URL(`./adapters/${name}.lua`, import.meta.url), "utf8"),
        baseUrl: fake.url,
        apiKey: "secret-key",
        model: `${name}-model`,
      });
      llm.setSources([{ name: `${name}-src`, provider, priority: 0 }]);
    });
    after(() => fake.close());

    test("streamed tool call, then the answer after the tool result", async () => {
      fake.enqueue(
        {
          reasoning: "I should add.",
          text: "Adding.",
          toolCalls: [{ id: "call_9", name: "add", arguments: { a: 2, b: 3 } }],
        },
        { text: "2 + 3 = 5" },
      );
      const messages: ChatMessage[] = [{ role: "user", content: "2+3?" }];
      const chunks: StreamChunk[] = [];
      const first = await llm.stream(
        { model: "", messages, tools: TOOLS, tool_choice: "auto", disable_thinking: true },
        { onChunk: (c) => chunks.push(c) },
      );
      assert.equal(first.content, "Adding.");
      assert.equal(chunks.map((c) => c.content).join(""), "Adding.");
      assert.deepEqual(first.tool_calls, [{ id: "call_9", name: "add", arguments: { a: 2, b: 3 } }]);
      assert.equal(first.finish_reason, "tool_calls");
      // Adapters that do not understand reasoning_content still must not lose the text or the call.
      if (name === "deepseek" || name === "server" || name === "github")
        assert.equal(first.reasoning_content, "I should add.");

      messages.push(
        {
          role: "assistant",
          content: first.content,
          reasoning_content: first.reasoning_content,
          tool_calls: [{ id: "call_9", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } }],
        },
        { role: "tool", tool_call_id: "call_9", name: "add", content: "5" },
      );
      const second = await llm.stream({ model: "", messages, tools: TOOLS });
      assert.equal(second.content, "2 + 3 = 5");

      const [req1, req2] = fake.requests.slice(-2);
      assert.equal(req1.headers.authorization, "Bearer secret-key");
      assert.equal(req1.body.model, `${name}-model`);
      assert.equal(req1.body.stream, true);
      assert.equal(req1.body.tools[0].function.name, "add");
      if (name === "github") assert.equal(req1.headers["x-github-api-version"], "2022-11-28");
      if (name === "deepseek") assert.deepEqual(req1.body.thinking, { type: "disabled" });
      const toolMsg = req2.body.messages.at(-1);
      assert.equal(toolMsg.role, "tool");
      assert.equal(toolMsg.tool_call_id, "call_9");
      assert.equal(req2.body.messages.at(-2).tool_calls[0].function.arguments, '{"a":2,"b":3}');
    });

    test("plain chat with usage", async () => {
      fake.enqueue({ text: "hello", usage: { prompt_tokens: 12, completion_tokens: 3, cached_tokens: 8 } });
      const res = await llm.chat({ model: "", messages: [{ role: "user", content: "hi" }] });
      assert.equal(res.content, "hello");
      assert.equal(res.token_usage?.prompt, 12);
      assert.equal(res.token_usage?.completion, 3);
      assert.equal(fake.requests.at(-1)?.body.stream, undefined);
    });
  });
}
