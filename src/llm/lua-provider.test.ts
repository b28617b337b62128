/**
 * LuaAdaptedProvider against the fake LLM over real HTTP: the request on the wire, replies and streams,
 * error kinds, timeouts, aborts, adapter logs and what an adapter may fetch.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { after, before, beforeEach, test } from "node:test";
import type { Logger } from "@homeagent/sdk";
import { type FakeLLM, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import { waitFor } from "../../test/fixtures/wait.js";
import type { CompletionRequest, StreamChunk } from "../kernel/llm-spec.js";
import { LuaVM } from "../lua/vm.js";
import { bundledAdapterLibraries } from "./adapters.js";
import { LuaAdaptedProvider, type LuaAdaptedProviderOptions } from "./lua-provider.js";
import { ProviderError } from "./provider.js";
import { StreamAccumulator } from "./stream-accumulator.js";

const OPENAI = readFileSync(new URL("./adapters/openai.lua", import.meta.url), "utf8");
const KEY = "sk-secret-test-key";
let fake: FakeLLM;

before(async () => {
  fake = await startFakeLLM();
});
after(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

function provider(over: Partial<LuaAdaptedProviderOptions> = {}) {
  return new LuaAdaptedProvider({
    sourceName: "main",
    adapterName: "openai",
    adapterSource: OPENAI,
    baseUrl: fake.url,
    apiKey: KEY,
    model: "fake-model",
    ...over,
  });
}

const request: CompletionRequest = { model: "", messages: [{ role: "user", content: "hi" }], max_tokens: 100 };

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ProviderError, `not a ProviderError: ${err}`);
    assert.ok(!err.message.includes(KEY), "the API key leaked into an error");
    return err;
  }
  assert.fail("expected a rejection");
}

async function drain(stream: AsyncIterable<StreamChunk>) {
  const chunks: StreamChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

test("chat: request on the wire and unified reply", async () => {
  fake.enqueue({
    text: "hello",
    reasoning: "short",
    usage: { prompt_tokens: 12, completion_tokens: 3, cached_tokens: 8 },
  });
  const reply = await provider().chat(request);
  assert.deepEqual(reply, {
    content: "hello",
    reasoning_content: "short",
    finish_reason: "stop",
    token_usage: {
      prompt: 12,
      completion: 3,
      total: 15,
      cache_read: 8,
      cache_miss: 4,
      cache_reported: true,
      reasoning_tokens: 0,
    },
    tool_calls: [],
  });
  const [sent] = fake.requests;
  assert.equal(sent.path, "/v1/chat/completions");
  assert.equal(sent.headers.authorization, `Bearer ${KEY}`);
  assert.deepEqual(sent.body, { model: "fake-model", messages: [{ role: "user", content: "hi" }], max_tokens: 100 });
});

test("no API key → no Authorization header; adapter headers are sent", async () => {
  const source = OPENAI.replace("headers = {}", 'headers = { ["x-extra"] = "1" }');
  await provider({ apiKey: "", adapterSource: source }).chat(request);
  assert.equal(fake.requests[0].headers.authorization, undefined);
  assert.equal(fake.requests[0].headers["x-extra"], "1");
});

test("stream: text, reasoning and tool-call fragments split across chunks", async () => {
  fake.enqueue({
    reasoning: "let me add",
    text: "Adding now.",
    toolCalls: [
      { name: "add", arguments: { a: 2, b: 3 }, id: "call_add" },
      { name: "note", arguments: { text: "ünïcode ✓" } },
    ],
    usage: { prompt_tokens: 20, completion_tokens: 9, reasoning_tokens: 4 },
  });
  const chunks = await drain(provider().chatStream({ ...request, stream: true }));
  assert.ok(chunks.filter((c) => c.content).length > 2, "text should arrive in several chunks");
  assert.ok(chunks.filter((c) => c.tool_calls.length).length > 4, "arguments should arrive in fragments");
  assert.equal(chunks.at(-1)?.done, true);
  assert.equal(fake.requests[0].body.stream, true);
  assert.deepEqual(fake.requests[0].body.stream_options, { include_usage: true });
  const acc = new StreamAccumulator();
  for (const c of chunks) acc.add(c);
  assert.deepEqual(acc.result(), {
    content: "Adding now.",
    reasoning_content: "let me add",
    finish_reason: "tool_calls",
    token_usage: {
      prompt: 20,
      completion: 9,
      total: 29,
      cache_read: 0,
      cache_miss: 20,
      cache_reported: false,
      reasoning_tokens: 4,
    },
    tool_calls: [
      { id: "call_add", name: "add", arguments: { a: 2, b: 3 } },
      { id: "call_2", name: "note", arguments: { text: "ünïcode ✓" } },
    ],
  });
});

test("HTTP 401 → kind auth with the provider's message, never the key", async () => {
  fake.enqueue({ status: 401 });
  const err = await rejection(provider().chat(request));
  assert.equal(err.kind, "auth");
  assert.equal(err.status, 401);
  assert.equal(err.message, "HTTP 401 Unauthorized: Incorrect API key provided");
});

test("HTTP 503 and 429 are transient, 400 is fatal", async () => {
  fake.enqueue({ status: 503 }, { status: 429 }, { status: 400 });
  assert.equal((await rejection(provider().chat(request))).kind, "transient");
  assert.equal((await rejection(provider().chat(request))).kind, "transient");
  assert.equal((await rejection(drain(provider().chatStream(request)))).kind, "fatal");
});

test("a body the adapter cannot parse is a fatal error naming adapter and source", async () => {
  fake.enqueue({ garbage: true });
  const err = await rejection(provider().chat(request));
  assert.equal(err.kind, "fatal");
  assert.match(
    err.message,
    /^adapter openai \(source main\) could not parse the response: json.decode: .*received: <html>/,
  );
});

test("an adapter that fails to load is a fatal error", async () => {
  const err = await rejection(provider({ adapterSource: "return {" }).chat(request));
  assert.equal(err.kind, "fatal");
  assert.match(err.message, /^adapter openai \(source main\) failed to load: openai:1:/);
  const noFns = await rejection(provider({ adapterSource: "return {}" }).chat(request));
  assert.match(noFns.message, /must return a table with transform_request and transform_response/);
});

test("an unreachable server is transient", async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const err = await rejection(provider({ baseUrl: `http://127.0.0.1:${port}/v1` }).chat(request));
  assert.equal(err.kind, "transient");
  assert.equal(err.message, `cannot reach http://127.0.0.1:${port}/v1/chat/completions: ECONNREFUSED`);
});

test("a stream cut midway is a transient error", async () => {
  fake.enqueue({ text: "a long answer that breaks", dieAfterChars: 6 });
  const chunks: StreamChunk[] = [];
  const err = await rejection(
    (async () => {
      for await (const c of provider().chatStream(request)) chunks.push(c);
    })(),
  );
  assert.equal(err.kind, "transient");
  assert.ok(chunks.map((c) => c.content).join("").length >= 6);
});

test("abort → kind aborted", async () => {
  fake.enqueue({ text: "late", delayMs: 2000 });
  const controller = new AbortController();
  const call = rejection(provider().chat(request, { signal: controller.signal }));
  // Aborted once the request is out, so the abort cuts a live HTTP call rather than the adapter's start.
  await fake.waitForRequests(1);
  const abortedAt = Date.now();
  controller.abort();
  const err = await call;
  assert.equal(err.kind, "aborted");
  assert.ok(Date.now() - abortedAt < 1000);
});

test("adapter log lines reach the logger with the key masked", async () => {
  const lines: string[] = [];
  const log: Logger = {
    debug: () => {},
    info: (m) => lines.push(m),
    warn: (m) => lines.push(m),
    error: (m) => lines.push(m),
  };
  const source = OPENAI.replace(
    "function adapter.transform_request(body)",
    `function adapter.transform_request(body)\n  log("info", "key is ${KEY}")`,
  );
  await provider({ adapterSource: source, log }).chat(request);
  assert.deepEqual(lines, ["adapter openai: key is ***"]);
});

test("429 → transient with retry-after in seconds or as an HTTP date", async () => {
  const at = new Date(Date.now() + 30_000).toUTCString();
  fake.enqueue({ status: 429, retryAfter: 7 }, { status: 429, retryAfter: at }, { status: 429 });
  const seconds = await rejection(provider().chat(request));
  assert.equal(seconds.kind, "transient");
  assert.equal(seconds.retryAfterMs, 7000);
  const date = await rejection(provider().chat(request));
  assert.ok(date.retryAfterMs !== undefined && date.retryAfterMs > 25_000 && date.retryAfterMs <= 30_000);
  assert.equal((await rejection(provider().chat(request))).retryAfterMs, undefined);
});

test("a 400 or 413 saying the prompt is too long → kind context_length; other 400s stay fatal", async () => {
  fake.enqueue(
    { status: 400, errorMessage: "This model's maximum context length is 8192 tokens. However, you requested 9000" },
    { status: 413, errorMessage: "prompt is too long: 210000 tokens > 200000 maximum" },
    { status: 400, errorMessage: "Invalid value for temperature" },
  );
  const tooLong = await rejection(provider().chat(request));
  assert.equal(tooLong.kind, "context_length");
  assert.match(tooLong.message, /^HTTP 400 Bad Request: This model's maximum context length/);
  assert.equal((await rejection(drain(provider().chatStream(request)))).kind, "context_length");
  assert.equal((await rejection(provider().chat(request))).kind, "fatal");
});

test("first-byte timeout: no headers in time → transient, and the request is cancelled", async () => {
  fake.enqueue({ text: "too late", delayMs: 5000 });
  const started = Date.now();
  const err = await rejection(provider({ firstByteTimeoutMs: 150 }).chat(request));
  assert.equal(err.kind, "transient");
  assert.equal(err.message, "no response from main within 150 ms");
  assert.ok(Date.now() - started < 1500);
  await waitFor(() => fake.requests[0]?.aborted === true, "the request to be cancelled", { timeoutMs: 2000 });
});

test("first-byte timeout: a stream whose headers came but whose body does not", async () => {
  fake.enqueue({ text: "too late", bodyDelayMs: 5000 });
  const err = await rejection(drain(provider({ firstByteTimeoutMs: 150 }).chatStream(request)));
  assert.equal(err.message, "no response from main within 150 ms");
});

test("first-byte timeout covers only the start: a slow but live stream completes; 0 disables it", async () => {
  fake.enqueue({ text: "steady", bodyDelayMs: 50 }, { text: "patient", delayMs: 300 });
  const chunks = await drain(provider({ firstByteTimeoutMs: 250 }).chatStream(request));
  assert.equal(chunks.map((c) => c.content).join(""), "steady");
  assert.equal((await provider({ firstByteTimeoutMs: 0 }).chat(request)).content, "patient");
});

test("auth schemes put the key where the adapter says; {model} is URL-encoded into the endpoint", async () => {
  const variant = (fields: string) => OPENAI.replace("headers = {},", `headers = {},\n  ${fields}`);
  await provider({
    adapterSource: variant('auth = "x-api-key", endpoint = "/chat/completions?model={model}",'),
    model: "org/model v1",
  }).chat(request);
  await provider({ adapterSource: variant('auth = "x-goog-api-key",') }).chat(request);
  await provider({ adapterSource: variant('auth = "none",') }).chat(request);
  const [apiKey, goog, none] = fake.requests;
  assert.equal(apiKey.path, "/v1/chat/completions?model=org%2Fmodel%20v1");
  assert.equal(apiKey.headers["x-api-key"], KEY);
  assert.equal(apiKey.headers.authorization, undefined);
  assert.equal(goog.headers["x-goog-api-key"], KEY);
  assert.equal(none.headers.authorization, undefined);
  assert.equal(JSON.stringify(none.headers).includes(KEY), false);
  const bad = await rejection(provider({ adapterSource: variant('auth = "basic",') }).chat(request));
  assert.match(
    bad.message,
    /^adapter openai \(source main\): auth must be one of "bearer", "x-api-key", .*not "basic"$/,
  );
});

test("stream_endpoint is used for streams only", async () => {
  const source = OPENAI.replace(
    'endpoint = "/chat/completions",',
    'endpoint = "/missing", stream_endpoint = "/chat/completions?stream=1",',
  );
  const chunks = await drain(provider({ adapterSource: source }).chatStream(request));
  assert.equal(chunks.at(-1)?.done, true);
  assert.equal(fake.requests[0].path, "/v1/chat/completions?stream=1");
});

test("libraries given to the provider replace the bundled ones, in every stream instance too", async () => {
  const bundled = readFileSync(new URL("./adapters/lib/openai_compat.lua", import.meta.url), "utf8");
  const start = "function compat.request(out, req, q)\n";
  const marked = bundled.replace(start, `${start}  out.marker = "mine"\n`);
  const p = provider({ libraries: { ...bundledAdapterLibraries(), openai_compat: marked } });
  await p.chat(request);
  await Promise.all([drain(p.chatStream(request)), drain(p.chatStream(request))]);
  assert.deepEqual(
    fake.requests.map((r) => r.body.marker),
    ["mine", "mine", "mine"],
  );
});

// openai.lua wrapped so that every chunk is followed by a numbered marker chunk: an array answer, and
// per-stream state in an upvalue that begin_stream resets.
const COUNTING = OPENAI.replace(
  /return adapter\s*$/,
  `local count = 0
function adapter.begin_stream() count = 0 end
local inner = adapter.transform_stream_chunk
function adapter.transform_stream_chunk(line)
  local out = inner(line)
  if out == "" then return "" end
  count = count + 1
  return "[" .. out .. "," .. json.encode({ content = "<" .. count .. ">", reasoning_content = "", done = false }) .. "]"
end
return adapter`,
);

test("array answers are split into chunks; concurrent streams keep their own Lua state", async () => {
  const p = provider({ adapterSource: COUNTING });
  fake.enqueue({ text: "aaaaaaaaaa" }, { text: "bbbbbbbbbb" }, { text: "cc" });
  const one = p.chatStream(request)[Symbol.asyncIterator]();
  const two = p.chatStream(request)[Symbol.asyncIterator]();
  const texts = ["", ""];
  const streams = [one, two];
  const open = [true, true];
  while (open[0] || open[1]) {
    for (const i of [0, 1]) {
      if (!open[i]) continue;
      const next = await streams[i].next();
      if (next.done) open[i] = false;
      else texts[i] += next.value.content;
    }
  }
  const markers = (text: string) => [...text.matchAll(/<(\d+)>/g)].map((m) => Number(m[1]));
  for (const text of texts) {
    const seen = markers(text);
    assert.deepEqual(
      seen,
      seen.map((_, i) => i + 1),
      `markers out of order: ${text}`,
    );
  }
  assert.deepEqual(
    texts.map((t) => t.replace(/<\d+>/g, "")),
    ["aaaaaaaaaa", "bbbbbbbbbb"],
  );
  const third = (await drain(p.chatStream(request))).map((c) => c.content).join("");
  assert.equal(markers(third)[0], 1, "a reused instance starts again from begin_stream");
});

test("http_get from an adapter: other hosts are refused, naming host and adapter", async () => {
  const source = OPENAI.replace(
    "function adapter.transform_request(body)",
    'function adapter.transform_request(body)\n  local _ = http_get("http://127.0.0.2:9/steal")',
  );
  const err = await rejection(provider({ adapterSource: source }).chat(request));
  assert.equal(err.kind, "fatal");
  assert.match(
    err.message,
    /could not build the request: openai:\d+: http_get: host 127\.0\.0\.2:9 is not allowed for adapter openai/,
  );
  assert.equal(fake.requests.length, 0);
});

test("a stream chunk the adapter fails on is quoted, even among chunks handed over together", async () => {
  const picky = OPENAI.replace(
    /return adapter\s*$/,
    `local inner = adapter.transform_stream_chunk
function adapter.transform_stream_chunk(line)
  if line:find("boom", 1, true) then error("cannot take this one") end
  return inner(line)
end
return adapter`,
  );
  fake.enqueue({ text: "fine words then boom", pieceChars: 5 });
  const err = await rejection(drain(provider({ adapterSource: picky }).chatStream(request)));
  assert.equal(err.kind, "fatal");
  assert.match(err.message, /could not parse a stream chunk: .*cannot take this one; received: .*boom/);
});

test("a failing begin_stream is reported as such, not as the request", async () => {
  const broken = OPENAI.replace(
    /return adapter\s*$/,
    `function adapter.begin_stream() error("no state") end\nreturn adapter`,
  );
  const err = await rejection(drain(provider({ adapterSource: broken }).chatStream(request)));
  assert.equal(err.kind, "fatal");
  assert.match(err.message, /^adapter openai \(source main\) could not begin a stream: .*no state/);
});

test("pass_through_text: long texts reach transform_request as stand-ins and the wire body has them whole", async () => {
  // Quotes, a newline, CJK and a backslash: each must come back exactly, escaped once, wherever it was put.
  const long = `She said "bring the map"\n去公园散步 C:\\path ${"and more words ".repeat(20)}`;
  const adapter = (pass: boolean) => `
    return {
      pass_through_text = ${pass},
      transform_request = function(body)
        local req = json.decode(body)
        local text = req.messages[1].content
        return json.encode(json.object({ model = req.model, seen = #text, merged = text .. " | " .. text,
          messages = req.messages }))
      end,
      transform_response = function(body) return body end,
    }`;
  const messages = [{ role: "user" as const, content: long }];
  for (const pass of [true, false]) {
    fake.requests.length = 0;
    fake.enqueue({ text: "ok" });
    await provider({ adapterSource: adapter(pass) })
      .chat({ model: "", messages })
      .catch(() => undefined);
    const sent = fake.requests[0].body as { seen: number; merged: string; messages: Array<{ content: string }> };
    assert.equal(sent.messages[0].content, long);
    assert.equal(sent.merged, `${long} | ${long}`);
    if (pass) assert.ok(sent.seen < 10, `the adapter saw ${sent.seen} bytes, not a stand-in`);
    else assert.equal(sent.seen, Buffer.byteLength(long));
  }
});

test("the bundled OpenAI adapter passes texts and tools through: a long prompt goes out as it came in", async () => {
  const long = `${"今天天气怎么样？ how is the weather ".repeat(40)}"quoted"\n`;
  const tools = ["lookup", "remember"].map((name) => ({
    type: "function" as const,
    function: {
      name,
      description: `the ${name} tool, ${"with a long description ".repeat(10)}`,
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    },
  }));
  fake.enqueue({ text: "ok" });
  await provider().chat({
    model: "",
    messages: [
      { role: "system", content: long },
      { role: "user", content: "hi" },
    ],
    tools,
  });
  assert.deepEqual(fake.requests[0].body.messages, [
    { role: "system", content: long },
    { role: "user", content: "hi" },
  ]);
  assert.deepEqual(fake.requests[0].body.tools, tools);
});

test("a stream's events that arrive together reach the adapter together, not one worker call per socket read", async () => {
  const callEach = LuaVM.prototype.callEach;
  let calls = 0;
  LuaVM.prototype.callEach = function (this: LuaVM, ...args: Parameters<LuaVM["callEach"]>) {
    calls++;
    return callEach.apply(this, args);
  };
  try {
    // The fake writes each event of the reply in two pieces, all in one go: 20 pieces.
    fake.enqueue({ text: "one two three four five", pieceChars: 3 });
    const chunks = await drain(provider().chatStream(request));
    assert.equal(chunks.map((c) => c.content).join(""), "one two three four five");
    assert.ok(calls <= 6, `${calls} worker calls for one reply`);
  } finally {
    LuaVM.prototype.callEach = callEach;
  }
});
