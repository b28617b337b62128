/**
 * Golden tests of the OpenAI-compatible adapters (deepseek, mistral, groq, github, server): unified request
 * → exact wire body and headers, recorded responses and stream chunks → unified shapes. The HTTP round
 * trips with tool calls and streaming are in compat-adapters-http.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AdapterHarness, loadAdapter } from "../../test/fixtures/adapter-harness.js";
import type { CompletionRequest } from "../kernel/llm-spec.js";

const NAMES = ["deepseek", "mistral", "groq", "github", "server"] as const;
type Name = (typeof NAMES)[number];

const adapters = new Map<Name, AdapterHarness>();
const call = (name: Name, fn: string, input: unknown) =>
  adapters.get(name)!.call(fn, typeof input === "string" ? input : JSON.stringify(input));
const callJson = async (name: Name, fn: string, input: unknown) => JSON.parse(await call(name, fn, input));

before(async () => {
  for (const name of NAMES) adapters.set(name, await loadAdapter(name));
});
after(async () => {
  for (const a of adapters.values()) await a.close();
});

const toolTurn: CompletionRequest = {
  model: "m",
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
  tools: [{ type: "function", function: { name: "add", description: "adds", parameters: { type: "object" } } }],
  tool_choice: "auto",
  disable_thinking: true,
};

const TOOLS_JSON =
  '"tool_choice":"auto","tools":[{"type":"function","function":{"name":"add","description":"adds","parameters":{"type":"object"}}}]';
const SYS_USER = '{"content":"be brief","role":"system"},{"content":"add 2 and 3","role":"user"},';
const CALL =
  '"tool_calls":[{"function":{"arguments":"{\\"a\\":2,\\"b\\":3}","name":"add"},"id":"call_1","type":"function"}]';

describe("adapter metadata", () => {
  const meta = (name: Name) => adapters.get(name)!.meta;
  test("every adapter posts to /chat/completions under its documented base_url", () => {
    for (const name of NAMES) assert.equal(meta(name).endpoint, "/chat/completions", name);
  });
  test("github sends the API version header; the others add none", () => {
    assert.deepEqual(meta("github").headers, { "X-GitHub-Api-Version": "2022-11-28" });
    for (const name of ["deepseek", "mistral", "groq", "server"] as const) assert.deepEqual(meta(name).headers, {});
  });
});

describe("unified request → exact body", () => {
  test("deepseek: reasoning echoed on the tool-call round, thinking disabled, usage in the stream", async () => {
    assert.equal(
      await call("deepseek", "transform_request", toolTurn),
      `{"max_tokens":4096,"messages":[${SYS_USER}` +
        `{"content":"","reasoning_content":"need the tool","role":"assistant",${CALL}},` +
        '{"content":"5","role":"tool","tool_call_id":"call_1"}],' +
        '"model":"m","stream":true,"stream_options":{"include_usage":true},"temperature":0.7,' +
        `"thinking":{"type":"disabled"},${TOOLS_JSON}}`,
    );
  });
  test("deepseek: thinking enabled when asked, absent when the request says nothing", async () => {
    const base = { model: "m", messages: [{ role: "user", content: "hi" }] };
    assert.deepEqual((await callJson("deepseek", "transform_request", { ...base, disable_thinking: false })).thinking, {
      type: "enabled",
    });
    assert.deepEqual(await callJson("deepseek", "transform_request", base), {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
  });
  test("deepseek: reasoning of a plain assistant message is never sent back", async () => {
    const out = await callJson("deepseek", "transform_request", {
      model: "m",
      messages: [{ role: "assistant", content: "hello", reasoning_content: "old thoughts" }],
    });
    assert.deepEqual(out.messages, [{ role: "assistant", content: "hello" }]);
  });
  for (const name of ["mistral", "groq"] as const) {
    test(`${name}: no reasoning echo, no stream_options, no thinking field`, async () => {
      assert.equal(
        await call(name, "transform_request", toolTurn),
        `{"max_tokens":4096,"messages":[${SYS_USER}` +
          `{"content":"","role":"assistant",${CALL}},` +
          '{"content":"5","name":"add","role":"tool","tool_call_id":"call_1"}],' +
          `"model":"m","stream":true,"temperature":0.7,${TOOLS_JSON}}`,
      );
    });
  }
  test("github: OpenAI body with stream usage, no reasoning echo", async () => {
    assert.equal(
      await call("github", "transform_request", { ...toolTurn, model: "openai/gpt-4.1" }),
      `{"max_tokens":4096,"messages":[${SYS_USER}` +
        `{"content":"","role":"assistant",${CALL}},` +
        '{"content":"5","name":"add","role":"tool","tool_call_id":"call_1"}],' +
        '"model":"openai/gpt-4.1","stream":true,"stream_options":{"include_usage":true},"temperature":0.7,' +
        `${TOOLS_JSON}}`,
    );
  });
  test("server: the full OpenAI body, reasoning echoed, extra_body merged", async () => {
    assert.equal(
      await call("server", "transform_request", { ...toolTurn, extra_body: { top_p: 0.9 } }),
      `{"max_tokens":4096,"messages":[${SYS_USER}` +
        `{"content":"","reasoning_content":"need the tool","role":"assistant",${CALL}},` +
        '{"content":"5","name":"add","role":"tool","tool_call_id":"call_1"}],' +
        '"model":"m","stream":true,"stream_options":{"include_usage":true},"temperature":0.7,' +
        `${TOOLS_JSON},"top_p":0.9}`,
    );
  });
});

const usage = (over: Record<string, unknown>) => ({
  prompt: 0,
  completion: 0,
  total: 0,
  cache_read: 0,
  cache_miss: 0,
  cache_reported: false,
  reasoning_tokens: 0,
  ...over,
});

const reply = (message: object, u: object) => ({
  id: "x",
  object: "chat.completion",
  choices: [{ index: 0, message, finish_reason: "stop" }],
  usage: u,
});

describe("recorded response → unified", () => {
  test("deepseek: reasoning and prompt cache hit/miss", async () => {
    const out = await callJson(
      "deepseek",
      "transform_response",
      reply(
        { role: "assistant", content: "5", reasoning_content: "2+3" },
        {
          prompt_tokens: 100,
          completion_tokens: 20,
          total_tokens: 120,
          prompt_cache_hit_tokens: 64,
          prompt_cache_miss_tokens: 36,
          completion_tokens_details: { reasoning_tokens: 12 },
        },
      ),
    );
    assert.deepEqual(out, {
      content: "5",
      reasoning_content: "2+3",
      finish_reason: "stop",
      token_usage: usage({
        prompt: 100,
        completion: 20,
        total: 120,
        cache_read: 64,
        cache_miss: 36,
        cache_reported: true,
        reasoning_tokens: 12,
      }),
      tool_calls: [],
    });
  });
  test("deepseek: a 0 % hit is reported, not unknown", async () => {
    const out = await callJson(
      "deepseek",
      "transform_response",
      reply(
        { content: "x" },
        { prompt_tokens: 10, completion_tokens: 1, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 10 },
      ),
    );
    assert.deepEqual(
      out.token_usage,
      usage({ prompt: 10, completion: 1, total: 11, cache_miss: 10, cache_reported: true }),
    );
  });
  test("mistral: Magistral thinking parts become reasoning; object:error raises", async () => {
    const out = await callJson(
      "mistral",
      "transform_response",
      reply(
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: [{ type: "text", text: "let me add" }] },
            { type: "text", text: "It is 5." },
          ],
          tool_calls: [{ id: "abcDEF123", function: { name: "add", arguments: '{"a":2}' } }],
        },
        { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      ),
    );
    assert.equal(out.content, "It is 5.");
    assert.equal(out.reasoning_content, "let me add");
    assert.deepEqual(out.tool_calls, [{ id: "abcDEF123", name: "add", arguments: { a: 2 } }]);
    assert.deepEqual(out.token_usage, usage({ prompt: 7, completion: 3, total: 10, cache_miss: 7 }));
    await assert.rejects(
      call("mistral", "transform_response", { object: "error", message: "Unauthorized", type: "auth" }),
      /provider error: Unauthorized/,
    );
  });
  test("groq: reasoning field and cached tokens", async () => {
    const out = await callJson(
      "groq",
      "transform_response",
      reply(
        { content: "hi", reasoning: "short" },
        { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55, prompt_tokens_details: { cached_tokens: 40 } },
      ),
    );
    assert.equal(out.reasoning_content, "short");
    assert.deepEqual(
      out.token_usage,
      usage({ prompt: 50, completion: 5, total: 55, cache_read: 40, cache_miss: 10, cache_reported: true }),
    );
  });
  test("github: invalid tool arguments are kept raw", async () => {
    const out = await callJson(
      "github",
      "transform_response",
      reply(
        { content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{oops" } }] },
        { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      ),
    );
    assert.deepEqual(out.tool_calls, [{ id: "c1", name: "f", arguments: {}, raw_arguments: "{oops" }]);
  });
  describe("server: every usage variant", () => {
    const u = async (raw: object) =>
      (await callJson("server", "transform_response", reply({ content: "x" }, raw))).token_usage;
    test("OpenAI prompt_tokens_details.cached_tokens", async () => {
      assert.deepEqual(
        await u({
          prompt_tokens: 100,
          completion_tokens: 10,
          total_tokens: 110,
          prompt_tokens_details: { cached_tokens: 80 },
        }),
        usage({ prompt: 100, completion: 10, total: 110, cache_read: 80, cache_miss: 20, cache_reported: true }),
      );
    });
    test("DeepSeek prompt_cache_hit/miss_tokens", async () => {
      assert.deepEqual(
        await u({
          prompt_tokens: 100,
          completion_tokens: 10,
          prompt_cache_hit_tokens: 30,
          prompt_cache_miss_tokens: 70,
        }),
        usage({ prompt: 100, completion: 10, total: 110, cache_read: 30, cache_miss: 70, cache_reported: true }),
      );
    });
    test("Anthropic cache_read_input_tokens with input/output_tokens", async () => {
      assert.deepEqual(
        await u({ input_tokens: 20, output_tokens: 8, cache_read_input_tokens: 70, cache_creation_input_tokens: 10 }),
        usage({ prompt: 100, completion: 8, total: 108, cache_read: 70, cache_miss: 30, cache_reported: true }),
      );
    });
    test("cache_read_input_tokens next to OpenAI prompt_tokens (LiteLLM)", async () => {
      assert.deepEqual(
        await u({ prompt_tokens: 90, completion_tokens: 9, total_tokens: 99, cache_read_input_tokens: 60 }),
        usage({ prompt: 90, completion: 9, total: 99, cache_read: 60, cache_miss: 30, cache_reported: true }),
      );
    });
    test("reasoning tokens from output_tokens_details; nothing about the cache → unknown", async () => {
      assert.deepEqual(
        await u({ input_tokens: 5, output_tokens: 9, output_tokens_details: { reasoning_tokens: 4 } }),
        usage({ prompt: 5, completion: 9, total: 14, cache_miss: 5, reasoning_tokens: 4 }),
      );
    });
  });
});

describe("stream chunks → unified", () => {
  const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({
    id: "c",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  const base = { content: "", reasoning_content: "", done: false, usage: null, tool_calls: [] };
  const run = async (name: Name, lines: unknown[]) => {
    const outs: string[] = [];
    for (const l of lines) outs.push(await call(name, "transform_stream_chunk", l));
    return outs.filter((o) => o !== "").map((o) => JSON.parse(o));
  };

  test("deepseek: reasoning deltas, tool-call fragments by index, cache usage", async () => {
    assert.deepEqual(
      await run("deepseek", [
        chunk({ role: "assistant", content: "" }),
        chunk({ reasoning_content: "hm" }),
        `data: ${JSON.stringify(chunk({ content: "Hi" }))}`,
        chunk({ tool_calls: [{ index: 1, id: "call_x", type: "function", function: { name: "add", arguments: "" } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{"a":' } }] }),
        chunk({}, "tool_calls"),
        { id: "c", choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, prompt_cache_hit_tokens: 5 } },
      ]),
      [
        { ...base, reasoning_content: "hm" },
        { ...base, content: "Hi" },
        { ...base, tool_calls: [{ id: "call_x", name: "add", raw_arguments: "", stream_index: 1 }] },
        { ...base, tool_calls: [{ id: "", name: "", raw_arguments: '{"a":', stream_index: 1 }] },
        { ...base, finish_reason: "tool_calls" },
        {
          ...base,
          usage: usage({ prompt: 5, completion: 1, total: 6, cache_read: 5, cache_miss: 0, cache_reported: true }),
        },
      ],
    );
  });
  test("mistral: whole tool calls with decoded arguments, usage on the last chunk", async () => {
    assert.deepEqual(
      await run("mistral", [
        chunk({ tool_calls: [{ id: "abcDEF123", function: { name: "add", arguments: { a: 2 } } }] }),
        chunk({ content: "" }, "tool_calls", { usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }),
      ]),
      [
        { ...base, tool_calls: [{ id: "abcDEF123", name: "add", raw_arguments: '{"a":2}', stream_index: 0 }] },
        { ...base, finish_reason: "tool_calls", usage: usage({ prompt: 3, completion: 2, total: 5, cache_miss: 3 }) },
      ],
    );
  });
  test("groq: reasoning deltas and x_groq usage", async () => {
    assert.deepEqual(
      await run("groq", [
        chunk({ reasoning: "think" }),
        chunk({}, "stop", {
          x_groq: { id: "req", usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 } },
        }),
      ]),
      [
        { ...base, reasoning_content: "think" },
        { ...base, finish_reason: "stop", usage: usage({ prompt: 4, completion: 2, total: 6, cache_miss: 4 }) },
      ],
    );
  });
  test("server: stream_index from the upstream index, position when absent; usage on the choice", async () => {
    assert.deepEqual(
      await run("server", [
        chunk({ tool_calls: [{ index: 3, id: "a", function: { name: "f", arguments: "{}" } }] }),
        chunk({
          tool_calls: [
            { id: "b", function: { name: "g", arguments: "{}" } },
            { id: "c", function: { name: "h" } },
          ],
        }),
        {
          id: "c",
          choices: [{ index: 0, delta: {}, finish_reason: "stop", usage: { prompt_tokens: 2, completion_tokens: 1 } }],
        },
      ]),
      [
        { ...base, tool_calls: [{ id: "a", name: "f", raw_arguments: "{}", stream_index: 3 }] },
        {
          ...base,
          tool_calls: [
            { id: "b", name: "g", raw_arguments: "{}", stream_index: 0 },
            { id: "c", name: "h", raw_arguments: "", stream_index: 1 },
          ],
        },
        { ...base, finish_reason: "stop", usage: usage({ prompt: 2, completion: 1, total: 3, cache_miss: 2 }) },
      ],
    );
  });
  test("errors inside a stream raise for every adapter", async () => {
    for (const name of NAMES) {
      await assert.rejects(
        call(name, "transform_stream_chunk", { error: { message: "overloaded" } }),
        /overloaded/,
        name,
      );
    }
  });
});
