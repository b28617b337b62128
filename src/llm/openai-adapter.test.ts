import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type AdapterHarness, loadAdapter } from "../../test/fixtures/adapter-harness.js";
import type { CompletionRequest } from "../kernel/llm-spec.js";

let openai: AdapterHarness;
const call = (fn: string, input: string) => openai.call(fn, input);

before(async () => {
  openai = await loadAdapter("openai");
});
after(() => openai.close());

test("adapter table carries its metadata", () => {
  assert.deepEqual(openai.meta, {
    name: "openai",
    version: "1",
    endpoint: "/chat/completions",
    headers: {},
    pass_through_text: true,
  });
});

test("unified request → exact OpenAI body", async () => {
  const req: CompletionRequest = {
    model: "gpt-test",
    messages: [
      { role: "system", content: "be brief" },
      { role: "user", content: "add 2 and 3" },
      {
        role: "assistant",
        content: "",
        reasoning_content: "need the tool",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } }],
      },
      { role: "tool", content: "5", tool_call_id: "call_1", name: "add" },
    ],
    temperature: 0.7,
    max_tokens: 4096,
    stream: true,
    tools: [
      {
        type: "function",
        function: {
          name: "add",
          description: "adds",
          parameters: { type: "object", properties: {}, required: [] },
        },
      },
    ],
    tool_choice: "auto",
    disable_thinking: true,
    extra_body: { top_p: 0.9 },
  };
  const expected =
    '{"max_tokens":4096,"messages":[' +
    '{"content":"be brief","role":"system"},' +
    '{"content":"add 2 and 3","role":"user"},' +
    '{"content":"","reasoning_content":"need the tool","role":"assistant","tool_calls":[{"function":{"arguments":"{\\"a\\":2,\\"b\\":3}","name":"add"},"id":"call_1","type":"function"}]},' +
    '{"content":"5","name":"add","role":"tool","tool_call_id":"call_1"}],' +
    '"model":"gpt-test","stream":true,"stream_options":{"include_usage":true},"temperature":0.7,' +
    '"tool_choice":"auto","tools":[{"type":"function","function":{"name":"add","description":"adds",' +
    '"parameters":{"type":"object","properties":{},"required":[]}}}],"top_p":0.9}';
  assert.equal(await call("transform_request", JSON.stringify(req)), expected);
});

test("a minimal request stays minimal", async () => {
  const out = JSON.parse(
    await call("transform_request", JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] })),
  );
  assert.deepEqual(out, { model: "m", messages: [{ role: "user", content: "hi" }] });
});

test("recorded response → unified result, with cache and reasoning usage", async () => {
  const recorded = {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1700000000,
    model: "gpt-test",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          reasoning_content: "thinking",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } },
            { id: "call_b", type: "function", function: { name: "broken", arguments: '{"a":' } },
            { id: "call_c", type: "function", function: { name: "noargs", arguments: "" } },
          ],
        },
        finish_reason: "tool_calls",
      },
    ],
    usage: {
      prompt_tokens: 100,
      completion_tokens: 20,
      total_tokens: 120,
      prompt_tokens_details: { cached_tokens: 64 },
      completion_tokens_details: { reasoning_tokens: 7 },
    },
  };
  assert.deepEqual(JSON.parse(await call("transform_response", JSON.stringify(recorded))), {
    content: "",
    reasoning_content: "thinking",
    finish_reason: "tool_calls",
    token_usage: {
      prompt: 100,
      completion: 20,
      total: 120,
      cache_read: 64,
      cache_miss: 36,
      cache_reported: true,
      reasoning_tokens: 7,
    },
    tool_calls: [
      { id: "call_a", name: "add", arguments: { a: 2, b: 3 } },
      { id: "call_b", name: "broken", arguments: {}, raw_arguments: '{"a":' },
      { id: "call_c", name: "noargs", arguments: {} },
    ],
  });
});

test("usage without cache details says the cache is unknown", async () => {
  const out = JSON.parse(
    await call(
      "transform_response",
      JSON.stringify({
        choices: [{ message: { content: "hi" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
      }),
    ),
  );
  assert.equal(out.content, "hi");
  assert.deepEqual(out.token_usage, {
    prompt: 10,
    completion: 2,
    total: 12,
    cache_read: 0,
    cache_miss: 10,
    cache_reported: false,
    reasoning_tokens: 0,
  });
});

test("responses the adapter cannot use raise errors", async () => {
  await assert.rejects(call("transform_response", "<html>"), /json.decode/);
  await assert.rejects(
    call("transform_response", '{"error":{"message":"quota exceeded"}}'),
    /provider error: quota exceeded/,
  );
  await assert.rejects(call("transform_response", '{"choices":[]}'), /response has no choices/);
});

test("stream chunks → unified chunks", async () => {
  const chunk = (delta: object, finish: string | null = null) =>
    JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
  const lines = [
    chunk({ role: "assistant", content: "" }),
    chunk({ reasoning_content: "hm" }),
    `data: ${chunk({ content: "Hel" })}`,
    chunk({ tool_calls: [{ index: 1, id: "call_x", type: "function", function: { name: "add", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 1, function: { arguments: '{"a":' } }] }),
    chunk({}, "tool_calls"),
    JSON.stringify({ id: "c", choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }),
  ];
  const outs: string[] = [];
  for (const line of lines) outs.push(await call("transform_stream_chunk", line));
  const base = { content: "", reasoning_content: "", done: false, usage: null, tool_calls: [] };
  assert.equal(outs[0], "");
  assert.deepEqual(
    outs.slice(1).map((o) => JSON.parse(o)),
    [
      { ...base, reasoning_content: "hm" },
      { ...base, content: "Hel" },
      { ...base, tool_calls: [{ id: "call_x", name: "add", raw_arguments: "", stream_index: 1 }] },
      { ...base, tool_calls: [{ id: "", name: "", raw_arguments: '{"a":', stream_index: 1 }] },
      { ...base, finish_reason: "tool_calls" },
      {
        ...base,
        usage: {
          prompt: 5,
          completion: 1,
          total: 6,
          cache_read: 0,
          cache_miss: 5,
          cache_reported: false,
          reasoning_tokens: 0,
        },
      },
    ],
  );
});
