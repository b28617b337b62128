/**
 * End to end over real HTTP: LuaAdaptedProvider with the bundled anthropic, gemini and ollama adapters
 * against the fake server speaking each wire format — tool calls, streaming, and a tool result sent back.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, beforeEach, describe, test } from "node:test";
import { type FakeLLM, type RecordedRequest, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import type { ChatMessage, CompletionRequest, StreamChunk } from "../kernel/llm-spec.js";
import { LuaAdaptedProvider } from "./lua-provider.js";
import { ProviderError } from "./provider.js";
import { StreamAccumulator } from "./stream-accumulator.js";

const KEY = "test-key-123";
let fake: FakeLLM;

before(async () => {
  fake = await startFakeLLM();
});
after(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

interface Case {
  adapter: string;
  model: string;
  chatPath: string;
  streamPath: string;
  /** Checks how the key was sent. */
  auth(req: RecordedRequest): void;
  /** Finds the tool result for call `id` in the second request's body. */
  toolResult(body: RecordedRequest["body"], id: string): unknown;
  expectedToolResult(id: string): unknown;
}

const cases: Case[] = [
  {
    adapter: "anthropic",
    model: "claude-test",
    chatPath: "/v1/messages",
    streamPath: "/v1/messages",
    auth: (req) => {
      assert.equal(req.headers["x-api-key"], KEY);
      assert.equal(req.headers.authorization, undefined);
      assert.equal(req.headers["anthropic-version"], "2023-06-01");
    },
    toolResult: (body) => body.messages.at(-1),
    expectedToolResult: (id) => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "5" }] }),
  },
  {
    adapter: "gemini",
    model: "gemini-test",
    chatPath: "/v1beta/models/gemini-test:generateContent",
    streamPath: "/v1beta/models/gemini-test:streamGenerateContent?alt=sse",
    auth: (req) => {
      assert.equal(req.headers["x-goog-api-key"], KEY);
      assert.equal(req.headers.authorization, undefined);
    },
    toolResult: (body) => body.contents.at(-1),
    expectedToolResult: () => ({
      role: "user",
      parts: [{ functionResponse: { name: "add", response: { result: "5" } } }],
    }),
  },
  {
    adapter: "ollama",
    model: "llama-test",
    chatPath: "/api/chat",
    streamPath: "/api/chat",
    // A keyless local server: even a configured key is not sent.
    auth: (req) => {
      assert.equal(req.headers.authorization, undefined);
      assert.equal(JSON.stringify(req.headers).includes(KEY), false);
    },
    toolResult: (body) => body.messages.at(-1),
    expectedToolResult: () => ({ role: "tool", content: "5", tool_name: "add" }),
  },
];

const TOOLS: CompletionRequest["tools"] = [
  {
    type: "function",
    function: {
      name: "add",
      description: "adds two numbers",
      parameters: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
    },
  },
];

const question: ChatMessage = { role: "user", content: "what is 2 + 3?" };

async function drain(stream: AsyncIterable<StreamChunk>) {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

for (const c of cases) {
  describe(`${c.adapter} adapter over HTTP`, () => {
    const provider = () =>
      new LuaAdaptedProvider({
        sourceName: `src-${c.adapter}`,
        adapterName: c.adapter,
        adapterSource: readFileSync(new URL(`./adapters/${c.adapter}.lua`, import.meta.url), "utf8"),
        baseUrl: fake.origin,
        apiKey: KEY,
        model: c.model,
      });

    test("chat with a tool call", async () => {
      fake.enqueue({
        text: "Adding.",
        toolCalls: [{ name: "add", arguments: { a: 2, b: 3 }, id: "toolu_add" }],
        usage: { prompt_tokens: 30, completion_tokens: 7 },
      });
      const reply = await provider().chat({ model: "", messages: [question], tools: TOOLS, max_tokens: 200 });
      const [sent] = fake.requests;
      assert.equal(sent.path, c.chatPath);
      c.auth(sent);
      assert.equal(reply.content, "Adding.");
      assert.equal(reply.finish_reason, "tool_calls");
      assert.equal(reply.tool_calls.length, 1);
      assert.equal(reply.tool_calls[0].name, "add");
      assert.deepEqual(reply.tool_calls[0].arguments, { a: 2, b: 3 });
      assert.ok(reply.tool_calls[0].id, "every tool call has an id");
      assert.equal(reply.token_usage?.prompt, 30);
      assert.equal(reply.token_usage?.completion, 7);
    });

    test("streaming with reasoning, text and two tool calls", async () => {
      fake.enqueue({
        reasoning: "two sums",
        text: "Adding both now.",
        toolCalls: [
          { name: "add", arguments: { a: 2, b: 3 } },
          { name: "add", arguments: { a: 10, b: 20 } },
        ],
        usage: { prompt_tokens: 40, completion_tokens: 9 },
      });
      const chunks = await drain(provider().chatStream({ model: "", messages: [question], tools: TOOLS }));
      const [sent] = fake.requests;
      assert.equal(sent.path, c.streamPath);
      c.auth(sent);
      assert.ok(chunks.filter((ch) => ch.content).length > 3, "text arrives in pieces");
      assert.equal(chunks.at(-1)?.done, true);
      const acc = new StreamAccumulator();
      for (const ch of chunks) acc.add(ch);
      const result = acc.result();
      assert.equal(result.content, "Adding both now.");
      assert.equal(result.reasoning_content, "two sums");
      assert.equal(result.finish_reason, "tool_calls");
      assert.deepEqual(
        result.tool_calls.map((t) => t.arguments),
        [
          { a: 2, b: 3 },
          { a: 10, b: 20 },
        ],
      );
      assert.equal(new Set(result.tool_calls.map((t) => t.id)).size, 2, "distinct ids");
      assert.equal(result.token_usage?.prompt, 40);
      assert.equal(result.token_usage?.completion, 9);
    });

    test("a tool result goes back in the provider's format and the conversation continues", async () => {
      fake.enqueue({ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 }, id: "toolu_add" }] }, { text: "It is 5." });
      const p = provider();
      const first = await p.chat({ model: "", messages: [question], tools: TOOLS });
      const call = first.tool_calls[0];
      const history: ChatMessage[] = [
        question,
        {
          role: "assistant",
          content: first.content,
          tool_calls: [
            { id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } },
          ],
        },
        { role: "tool", content: "5", tool_call_id: call.id },
      ];
      const second = await p.chat({ model: "", messages: history, tools: TOOLS });
      assert.equal(second.content, "It is 5.");
      const body = fake.requests[1].body;
      assert.deepEqual(c.toolResult(body, call.id), c.expectedToolResult(call.id));
    });

    test("a stream cut midway is transient; a body the adapter cannot read is fatal and names it", async () => {
      fake.enqueue({ text: "a long answer that breaks off", dieAfterChars: 8 }, { garbage: true });
      const cut = await drain(provider().chatStream({ model: "", messages: [question] })).catch((e) => e);
      assert.ok(cut instanceof ProviderError && cut.kind === "transient", String(cut));
      const bad = await provider()
        .chat({ model: "", messages: [question] })
        .catch((e) => e);
      assert.ok(bad instanceof ProviderError && bad.kind === "fatal", String(bad));
      assert.match(bad.message, new RegExp(`^adapter ${c.adapter} \\(source src-${c.adapter}\\) could not parse`));
    });
  });
}
