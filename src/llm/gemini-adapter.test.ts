import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type AdapterHarness, fold, loadAdapter } from "../../test/fixtures/adapter-harness.js";

let g: AdapterHarness;
before(async () => {
  g = await loadAdapter("gemini");
});
after(() => g.close());

test("adapter table: model in the path, SSE stream endpoint, x-goog-api-key auth", () => {
  assert.deepEqual(g.meta, {
    name: "gemini",
    version: "1",
    endpoint: "/v1beta/models/{model}:generateContent",
    stream_endpoint: "/v1beta/models/{model}:streamGenerateContent?alt=sse",
    auth: "x-goog-api-key",
    headers: {},
  });
});

test("unified request → exact generateContent body", async () => {
  const body = await g.request({
    model: "gemini-2.5-flash",
    messages: [
      { role: "system", content: "be brief" },
      { role: "user", content: "weather in Paris?" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "call_0_abc", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
          { id: "call_1_def", type: "function", function: { name: "time", arguments: "" } },
        ],
      },
      // Tool results name no function: the adapter finds it through the call id.
      { role: "tool", content: "18C", tool_call_id: "call_0_abc" },
      { role: "tool", content: "10:00", tool_call_id: "call_1_def" },
      { role: "assistant", content: "18C at 10:00." },
      { role: "user", content: "thanks" },
    ],
    temperature: 0.2,
    max_tokens: 512,
    stream: true,
    disable_thinking: true,
    tools: [
      {
        type: "function",
        function: {
          name: "weather",
          description: "current weather",
          parameters: {
            type: "object",
            $schema: "http://json-schema.org/draft-07/schema#",
            additionalProperties: false,
            properties: {
              city: { type: "string", description: "name" },
              units: { type: "array", items: { type: "string", additionalProperties: false } },
            },
            required: ["city"],
          },
        },
      },
      {
        type: "function",
        function: { name: "time", description: "now", parameters: { type: "object", properties: {} } },
      },
    ],
    tool_choice: "auto",
    extra_body: { generationConfig: { topK: 40 }, safetySettings: [] },
  });
  assert.equal(
    body,
    '{"contents":[' +
      '{"parts":[{"text":"weather in Paris?"}],"role":"user"},' +
      '{"parts":[{"functionCall":{"args":{"city":"Paris"},"name":"weather"}},{"functionCall":{"args":{},"name":"time"}}],"role":"model"},' +
      '{"parts":[{"functionResponse":{"name":"weather","response":{"result":"18C"}}},' +
      '{"functionResponse":{"name":"time","response":{"result":"10:00"}}}],"role":"user"},' +
      '{"parts":[{"text":"18C at 10:00."}],"role":"model"},' +
      '{"parts":[{"text":"thanks"}],"role":"user"}],' +
      '"generationConfig":{"maxOutputTokens":512,"temperature":0.2,"thinkingConfig":{"thinkingBudget":0},"topK":40},' +
      '"safetySettings":[],"systemInstruction":{"parts":[{"text":"be brief"}]},' +
      '"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}},' +
      '"tools":[{"functionDeclarations":[{"description":"current weather","name":"weather",' +
      '"parameters":{"properties":{"city":{"description":"name","type":"string"},"units":{"items":{"type":"string"},"type":"array"}},' +
      '"required":["city"],"type":"object"}},{"description":"now","name":"time"}]}]}',
  );
});

test("a tool result without a matching call is refused", async () => {
  await assert.rejects(
    g.request({ model: "m", messages: [{ role: "tool", content: "x", tool_call_id: "nope" }] }),
    /tool result nope has no matching tool call/,
  );
});

test("recorded response → unified: thoughts, text, function calls with stable synthesised ids, usage", async () => {
  const recorded = {
    candidates: [
      {
        content: {
          role: "model",
          parts: [
            { text: "Looking up both cities.", thought: true },
            { text: "Let me check." },
            { functionCall: { name: "weather", args: { city: "Paris" } } },
            { functionCall: { name: "weather", args: { city: "Rome" } } },
          ],
        },
        finishReason: "STOP",
        index: 0,
      },
    ],
    usageMetadata: {
      promptTokenCount: 120,
      candidatesTokenCount: 30,
      totalTokenCount: 170,
      cachedContentTokenCount: 100,
      thoughtsTokenCount: 20,
    },
    modelVersion: "gemini-2.5-flash",
  };
  const out = await g.response(recorded);
  assert.deepEqual(out, {
    content: "Let me check.",
    reasoning_content: "Looking up both cities.",
    finish_reason: "tool_calls",
    token_usage: {
      prompt: 120,
      completion: 50,
      total: 170,
      cache_read: 100,
      cache_miss: 20,
      cache_reported: true,
      reasoning_tokens: 20,
    },
    tool_calls: [
      { id: out.tool_calls[0].id, name: "weather", arguments: { city: "Paris" } },
      { id: out.tool_calls[1].id, name: "weather", arguments: { city: "Rome" } },
    ],
  });
  assert.match(out.tool_calls[0].id, /^call_0_[0-9a-f]{8}$/);
  assert.notEqual(out.tool_calls[0].id, out.tool_calls[1].id);
  assert.deepEqual((await g.response(recorded)).tool_calls, out.tool_calls, "ids must not change between parses");
});

test("finish reasons, missing cache figures, blocked prompts and API errors", async () => {
  const reply = (finishReason: string) =>
    g.response({
      candidates: [{ content: { role: "model", parts: [{ text: "x" }] }, finishReason }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1, totalTokenCount: 5 },
    });
  assert.equal((await reply("STOP")).finish_reason, "stop");
  assert.equal((await reply("MAX_TOKENS")).finish_reason, "length");
  assert.equal((await reply("SAFETY")).finish_reason, "content_filter");
  assert.equal((await reply("STOP")).token_usage?.cache_reported, false);
  await assert.rejects(g.response({ promptFeedback: { blockReason: "SAFETY" } }), /the prompt was blocked: SAFETY/);
  await assert.rejects(
    g.response({ error: { code: 400, message: "API key not valid", status: "INVALID_ARGUMENT" } }),
    /provider error: API key not valid/,
  );
  await assert.rejects(g.response({}), /response has no candidates/);
});

// As streamGenerateContent?alt=sse sends it: CRLF line ends, usage in every event, no end marker.
const RECORDED = [
  { candidates: [{ content: { parts: [{ text: "Comparing.", thought: true }], role: "model" }, index: 0 }] },
  { candidates: [{ content: { parts: [{ text: "The weather" }], role: "model" }, index: 0 }] },
  { candidates: [{ content: { parts: [{ text: " is:" }], role: "model" }, index: 0 }] },
  {
    candidates: [
      {
        content: { parts: [{ functionCall: { name: "weather", args: { city: "Paris" } } }], role: "model" },
        index: 0,
      },
    ],
  },
  {
    candidates: [
      {
        content: { parts: [{ functionCall: { name: "weather", args: { city: "Rome" } } }], role: "model" },
        finishReason: "STOP",
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 12, totalTokenCount: 41, thoughtsTokenCount: 20 },
  },
]
  .map((event) => `data: ${JSON.stringify({ ...event, modelVersion: "gemini-2.5-flash" })}\r\n\r\n`)
  .join("");

test("recorded stream → unified chunks; calls numbered across events; STOP after calls is tool_calls", async () => {
  const chunks = await g.stream(RECORDED);
  assert.deepEqual(
    chunks.flatMap((c) => c.tool_calls.map((t) => t.stream_index)),
    [0, 1],
  );
  const result = fold(chunks);
  assert.deepEqual(result, {
    content: "The weather is:",
    reasoning_content: "Comparing.",
    finish_reason: "tool_calls",
    token_usage: {
      prompt: 9,
      completion: 32,
      total: 41,
      cache_read: 0,
      cache_miss: 9,
      cache_reported: false,
      reasoning_tokens: 20,
    },
    tool_calls: [
      { id: result.tool_calls[0].id, name: "weather", arguments: { city: "Paris" } },
      { id: result.tool_calls[1].id, name: "weather", arguments: { city: "Rome" } },
    ],
  });
  // begin_stream restarts the numbering, and the same calls in a whole reply get the same ids.
  assert.deepEqual(fold(await g.stream(RECORDED)).tool_calls, result.tool_calls);
  const whole = await g.response({
    candidates: [
      {
        content: {
          role: "model",
          parts: [
            { functionCall: { name: "weather", args: { city: "Paris" } } },
            { functionCall: { name: "weather", args: { city: "Rome" } } },
          ],
        },
        finishReason: "STOP",
      },
    ],
  });
  assert.deepEqual(
    whole.tool_calls.map((t) => t.id),
    result.tool_calls.map((t) => t.id),
  );
});
