import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type AdapterHarness, fold, loadAdapter } from "../../test/fixtures/adapter-harness.js";

let o: AdapterHarness;
before(async () => {
  o = await loadAdapter("ollama");
});
after(() => o.close());

test("adapter table: /api/chat, no auth, NDJSON streams", () => {
  assert.deepEqual(o.meta, {
    name: "ollama",
    version: "1",
    endpoint: "/api/chat",
    auth: "none",
    stream_format: "ndjson",
    headers: {},
  });
});

test("unified request → exact /api/chat body: arguments as objects, tool_name, options, think", async () => {
  const body = await o.request({
    model: "llama3.2:3b",
    messages: [
      { role: "system", content: "be brief" },
      { role: "user", content: "weather in Paris?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "call_0_abc", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: "tool", content: "18C", tool_call_id: "call_0_abc" },
    ],
    temperature: 0.2,
    max_tokens: 512,
    stream: false,
    disable_thinking: true,
    tools: [
      {
        type: "function",
        function: {
          name: "weather",
          description: "current weather",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ],
    tool_choice: "auto",
    extra_body: { options: { num_ctx: 8192 }, keep_alive: "5m" },
  });
  assert.equal(
    body,
    '{"keep_alive":"5m","messages":[' +
      '{"content":"be brief","role":"system"},' +
      '{"content":"weather in Paris?","role":"user"},' +
      '{"content":"","role":"assistant","tool_calls":[{"function":{"arguments":{"city":"Paris"},"name":"weather"}}]},' +
      '{"content":"18C","role":"tool","tool_name":"weather"}],' +
      '"model":"llama3.2:3b","options":{"num_ctx":8192,"num_predict":512,"temperature":0.2},"stream":false,"think":false,' +
      '"tools":[{"type":"function","function":{"name":"weather","description":"current weather",' +
      '"parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]}',
  );
});

test("stream is always sent (Ollama streams by default) and tool_choice none withholds the tools", async () => {
  const body = JSON.parse(
    await o.request({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "t", description: "", parameters: {} } }],
      tool_choice: "none",
    }),
  );
  assert.deepEqual(body, { model: "m", messages: [{ role: "user", content: "hi" }], stream: false });
});

test("recorded response → unified: thinking, tool calls with synthesised ids, usage without cache figures", async () => {
  const out = await o.response({
    model: "qwen3:8b",
    created_at: "2025-06-01T10:00:00.000Z",
    message: {
      role: "assistant",
      content: "",
      thinking: "Need the weather.",
      tool_calls: [{ function: { name: "weather", arguments: { city: "Paris" } } }],
    },
    done_reason: "stop",
    done: true,
    total_duration: 4883583458,
    load_duration: 1334875,
    prompt_eval_count: 26,
    prompt_eval_duration: 342546000,
    eval_count: 282,
    eval_duration: 4535599000,
  });
  assert.match(out.tool_calls[0]?.id ?? "", /^call_0_[0-9a-f]{8}$/);
  assert.deepEqual(out, {
    content: "",
    reasoning_content: "Need the weather.",
    finish_reason: "tool_calls",
    token_usage: {
      prompt: 26,
      completion: 282,
      total: 308,
      cache_read: 0,
      cache_miss: 0,
      cache_reported: false,
      reasoning_tokens: 0,
    },
    tool_calls: [{ id: out.tool_calls[0].id, name: "weather", arguments: { city: "Paris" } }],
  });
  const cut = await o.response({ message: { role: "assistant", content: "abc" }, done: true, done_reason: "length" });
  assert.equal(cut.finish_reason, "length");
  await assert.rejects(o.response({ error: "model 'nope' not found" }), /provider error: model 'nope' not found/);
});

const RECORDED = [
  { message: { role: "assistant", content: "", thinking: "Hmm" }, done: false },
  { message: { role: "assistant", content: "Checking" }, done: false },
  { message: { role: "assistant", content: " now." }, done: false },
  {
    message: {
      role: "assistant",
      content: "",
      tool_calls: [
        { function: { name: "weather", arguments: { city: "Paris" } } },
        { function: { name: "time", arguments: {} } },
      ],
    },
    done: false,
  },
  {
    message: { role: "assistant", content: "" },
    done_reason: "stop",
    done: true,
    prompt_eval_count: 40,
    eval_count: 12,
  },
]
  .map((line) => `${JSON.stringify({ model: "qwen3:8b", created_at: "2025-06-01T10:00:00Z", ...line })}\n`)
  .join("");

test("recorded NDJSON stream → unified chunks; done after tool calls finishes as tool_calls", async () => {
  const chunks = await o.stream(RECORDED, "ndjson");
  assert.equal(chunks.at(-1)?.done, true);
  const result = fold(chunks);
  assert.deepEqual(result, {
    content: "Checking now.",
    reasoning_content: "Hmm",
    finish_reason: "tool_calls",
    token_usage: {
      prompt: 40,
      completion: 12,
      total: 52,
      cache_read: 0,
      cache_miss: 0,
      cache_reported: false,
      reasoning_tokens: 0,
    },
    tool_calls: [
      { id: result.tool_calls[0].id, name: "weather", arguments: { city: "Paris" } },
      { id: result.tool_calls[1].id, name: "time", arguments: {} },
    ],
  });
  const plain = fold(
    await o.stream(RECORDED.split("\n").slice(1, 3).concat(RECORDED.split("\n")[4], "").join("\n"), "ndjson"),
  );
  assert.equal(plain.finish_reason, "stop", "begin_stream forgets the previous stream's calls");
});

test("an error line in the stream raises", async () => {
  await assert.rejects(
    o.stream('{"error":"an unknown error was encountered"}\n', "ndjson"),
    /provider error: an unknown/,
  );
});
