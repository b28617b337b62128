import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type AdapterHarness, fold, loadAdapter, sseEvents } from "../../test/fixtures/adapter-harness.js";

let a: AdapterHarness;
before(async () => {
  a = await loadAdapter("anthropic");
});
after(() => a.close());

test("adapter table: endpoint, x-api-key auth and the API version header", () => {
  assert.deepEqual(a.meta, {
    name: "anthropic",
    version: "1",
    endpoint: "/v1/messages",
    auth: "x-api-key",
    headers: { "anthropic-version": "2023-06-01" },
  });
});

test("unified request → exact Messages body: system split out, tool_use blocks, merged tool_result turn", async () => {
  const body = await a.request({
    model: "claude-sonnet-4-5",
    messages: [
      { role: "system", content: "be brief" },
      { role: "system", content: "memory: likes tea" },
      { role: "user", content: "weather in Paris and Rome?" },
      {
        role: "assistant",
        content: "Checking both.",
        reasoning_content: "two calls",
        tool_calls: [
          { id: "toolu_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
          { id: "toolu_2", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool", content: "18C", tool_call_id: "toolu_1", name: "weather" },
      { role: "tool", content: "24C", tool_call_id: "toolu_2", name: "weather" },
      { role: "user", content: "thanks" },
    ],
    temperature: 0.5,
    stream: true,
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
  });
  assert.equal(
    body,
    '{"max_tokens":4096,"messages":[' +
      '{"content":"weather in Paris and Rome?","role":"user"},' +
      '{"content":[{"text":"Checking both.","type":"text"},' +
      '{"id":"toolu_1","input":{"city":"Paris"},"name":"weather","type":"tool_use"},' +
      '{"id":"toolu_2","input":{"city":"Rome"},"name":"weather","type":"tool_use"}],"role":"assistant"},' +
      '{"content":[{"content":"18C","tool_use_id":"toolu_1","type":"tool_result"},' +
      '{"content":"24C","tool_use_id":"toolu_2","type":"tool_result"}],"role":"user"},' +
      '{"content":"thanks","role":"user"}],' +
      '"model":"claude-sonnet-4-5","stream":true,"system":"be brief\\n\\nmemory: likes tea","temperature":0.5,' +
      '"tool_choice":{"type":"auto"},"tools":[{"description":"current weather",' +
      '"input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"name":"weather"}]}',
  );
});

test("a minimal request: max_tokens kept, no system, empty assistant turn dropped, extra_body merged", async () => {
  const body = JSON.parse(
    await a.request({
      model: "m",
      max_tokens: 100,
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "" },
        { role: "user", content: "again" },
      ],
      extra_body: { thinking: { type: "enabled", budget_tokens: 1024 } },
    }),
  );
  assert.deepEqual(body, {
    model: "m",
    max_tokens: 100,
    messages: [
      { role: "user", content: "hi" },
      { role: "user", content: "again" },
    ],
    thinking: { type: "enabled", budget_tokens: 1024 },
  });
});

test("recorded response → unified: text, thinking, tool_use, stop reason and cache usage", async () => {
  const out = await a.response({
    id: "msg_01Aq9w938a90dw8q",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [
      { type: "thinking", thinking: "The user wants weather.", signature: "EqQBCgIYAhIM" },
      { type: "text", text: "I'll check." },
      { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "weather", input: { city: "Paris" } },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 30, cache_creation_input_tokens: 20, cache_read_input_tokens: 50, output_tokens: 12 },
  });
  assert.deepEqual(out, {
    content: "I'll check.",
    reasoning_content: "The user wants weather.",
    finish_reason: "tool_calls",
    token_usage: {
      prompt: 100,
      completion: 12,
      total: 112,
      cache_read: 50,
      cache_miss: 50,
      cache_reported: true,
      reasoning_tokens: 0,
    },
    tool_calls: [{ id: "toolu_01A09q90qw90lq917835lq9", name: "weather", arguments: { city: "Paris" } }],
  });
});

test("stop reasons map to unified finish reasons; usage without cache fields is 'unknown'", async () => {
  const reply = (stop_reason: string) =>
    a.response({
      type: "message",
      content: [{ type: "text", text: "x" }],
      stop_reason,
      usage: { input_tokens: 5, output_tokens: 1 },
    });
  assert.equal((await reply("end_turn")).finish_reason, "stop");
  assert.equal((await reply("max_tokens")).finish_reason, "length");
  assert.equal((await reply("stop_sequence")).finish_reason, "stop");
  assert.deepEqual((await reply("end_turn")).token_usage, {
    prompt: 5,
    completion: 1,
    total: 6,
    cache_read: 0,
    cache_miss: 5,
    cache_reported: false,
    reasoning_tokens: 0,
  });
});

test("error bodies and unusable responses raise", async () => {
  await assert.rejects(
    a.response({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
    /provider error: Overloaded/,
  );
  await assert.rejects(a.response({ type: "message" }), /response has no content/);
  await assert.rejects(a.call("transform_response", "<html>"), /json.decode/);
});

// The example stream of Anthropic's streaming documentation, with a thinking block added.
const RECORDED = sseEvents([
  {
    type: "message_start",
    message: {
      id: "msg_014p7gG3wDgGV9EUtLvnow3U",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 472, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 2 },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Need the " } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "weather tool." } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM" } },
  { type: "content_block_stop", index: 0 },
  { type: "ping" },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Okay, let me " } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "check." } },
  { type: "content_block_stop", index: 1 },
  {
    type: "content_block_start",
    index: 2,
    content_block: { type: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", input: {} },
  },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: "" } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"location":' } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: ' "San Francisco, CA"}' } },
  { type: "content_block_stop", index: 2 },
  {
    type: "message_delta",
    delta: { stop_reason: "tool_use", stop_sequence: null },
    usage: { output_tokens: 89 },
  },
  { type: "message_stop" },
]);

test("recorded stream → unified chunks and result; input usage from message_start joins message_delta's", async () => {
  const chunks = await a.stream(RECORDED);
  assert.equal(chunks.at(-1)?.done, true);
  assert.deepEqual(chunks[0], {
    content: "",
    reasoning_content: "Need the ",
    done: false,
    usage: null,
    tool_calls: [],
  });
  assert.deepEqual(fold(chunks), {
    content: "Okay, let me check.",
    reasoning_content: "Need the weather tool.",
    finish_reason: "tool_calls",
    token_usage: {
      prompt: 472,
      completion: 89,
      total: 561,
      cache_read: 0,
      cache_miss: 472,
      cache_reported: true,
      reasoning_tokens: 0,
    },
    tool_calls: [
      { id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", arguments: { location: "San Francisco, CA" } },
    ],
  });
});

test("begin_stream resets the usage kept from the previous stream", async () => {
  await a.stream(RECORDED);
  const chunks = await a.stream(
    sseEvents([
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } },
      { type: "message_stop" },
    ]),
  );
  assert.equal(chunks[0].usage?.prompt, 0);
  assert.equal(chunks[0].finish_reason, "stop");
});

test("an error event in the stream raises with the provider's message", async () => {
  await assert.rejects(
    a.stream(sseEvents([{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }])),
    /provider error: Overloaded/,
  );
});
