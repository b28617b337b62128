/** ProviderManager over real HTTP: source order, retries and fallback, aborts, broken streams and their restarts. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { type FakeLLM, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import { waitFor } from "../../test/fixtures/wait.js";
import type { CompletionRequest, StreamChunk } from "../kernel/llm-spec.js";
import { LuaAdaptedProvider } from "./lua-provider.js";
import { AllProvidersFailedError, NoSourceError, ProviderManager } from "./manager.js";
import { ProviderError } from "./provider.js";
import type { SourceEntry } from "./source-state.js";

const OPENAI = readFileSync(new URL("./adapters/openai.lua", import.meta.url), "utf8");
const fakes: FakeLLM[] = [];
let a: FakeLLM;
let b: FakeLLM;

before(async () => {
  a = await startFakeLLM();
  b = await startFakeLLM();
});
after(async () => {
  await Promise.all([a, b, ...fakes].map((f) => f.close()));
});

function source(name: string, fake: FakeLLM, priority = 0): SourceEntry {
  const provider = new LuaAdaptedProvider({
    sourceName: name,
    adapterName: "openai",
    adapterSource: OPENAI,
    baseUrl: fake.url,
    apiKey: `key-${name}`,
    model: `model-${name}`,
  });
  return { name, provider, priority };
}

async function fresh(): Promise<[FakeLLM, FakeLLM]> {
  const pair: [FakeLLM, FakeLLM] = [await startFakeLLM(), await startFakeLLM()];
  fakes.push(...pair);
  return pair;
}

const req: CompletionRequest = { model: "", messages: [{ role: "user", content: "hi" }] };

test("no sources → NoSourceError with what to set", async () => {
  const m = new ProviderManager();
  assert.equal(m.hasSources(), false);
  await assert.rejects(m.chat(req), NoSourceError);
  await assert.rejects(
    m.stream(req),
    new RegExp(
      "^NoSourceError: no LLM source configured: set HOMEAGENT_LLM_BASE_URL \\(and HOMEAGENT_LLM_API_KEY, " +
        "HOMEAGENT_LLM_MODEL\\) or core.llm.sources.<name>.base_url / .model / .api_key$",
    ),
  );
});

test("order: lower priority first, then registration order", () => {
  const m = new ProviderManager();
  m.setSources([source("late", a, 5), source("first", a, 1), source("second", b, 1)]);
  assert.deepEqual(
    m.sources().map((s) => [s.name, s.model, s.available, s.lastError]),
    [
      ["first", "model-first", true, undefined],
      ["second", "model-second", true, undefined],
      ["late", "model-late", true, undefined],
    ],
  );
});

test("401 on the first source → fallback to the second, first disabled until reset", async () => {
  const [x, y] = await fresh();
  const m = new ProviderManager({ retryDelayMs: 20 });
  m.setSources([source("x", x), source("y", y)]);
  x.enqueue({ status: 401 });
  y.enqueue({ text: "from y" }, { text: "again y" });
  assert.equal((await m.chat(req)).content, "from y");
  assert.equal(x.requests.length, 1);
  assert.deepEqual(
    m.sources().map((s) => [s.name, s.available]),
    [
      ["x", false],
      ["y", true],
    ],
  );
  assert.match(m.sources()[0].lastError ?? "", /HTTP 401/);
  assert.equal((await m.chat(req)).content, "again y");
  assert.equal(x.requests.length, 1, "a disabled source is skipped");
  m.resetSource("x");
  assert.equal((await m.chat(req)).content, "ok");
  assert.equal(x.requests.length, 2);
});

test("one call may ask a source first, before the preferred one; an unknown name is refused", async () => {
  const [x, y] = await fresh();
  const m = new ProviderManager({ retryDelayMs: 20 });
  m.setSources([source("x", x), source("y", y)]);
  m.setPreferred("x");
  y.enqueue({ text: "from y" });
  assert.equal((await m.stream(req, { source: "y" })).content, "from y");
  assert.equal(x.requests.length, 0);
  x.enqueue({ text: "from x" });
  assert.equal((await m.stream(req)).content, "from x", "the next call goes back to the preferred");
  y.enqueue({ status: 401 });
  x.enqueue({ text: "x stands in" });
  assert.equal((await m.stream(req, { source: "y" })).content, "x stands in", "the others still stand in");
  await assert.rejects(m.stream(req, { source: "nope" }), /no LLM source named "nope"/);
});

test("503 is retried once on the same source after the delay, then succeeds", async () => {
  const [x, y] = await fresh();
  const m = new ProviderManager({ retryDelayMs: 20 });
  m.setSources([source("x", x), source("y", y)]);
  x.enqueue({ status: 503 }, { text: "second try" });
  const chunks: StreamChunk[] = [];
  const reply = await m.stream(req, { onChunk: (c) => chunks.push(c) });
  assert.equal(reply.content, "second try");
  assert.equal(chunks.map((c) => c.content).join(""), "second try");
  assert.equal(x.requests.length, 2);
  assert.equal(y.requests.length, 0);
});

test("all failed → one message listing every source and why", async () => {
  const [x, y] = await fresh();
  const m = new ProviderManager({ retryDelayMs: 20 });
  m.setSources([source("x", x), source("y", y)]);
  x.enqueue({ status: 401 });
  y.enqueue({ status: 503 }, { status: 503 });
  const err = await m.chat(req).catch((e) => e);
  assert.ok(err instanceof AllProvidersFailedError);
  assert.equal(
    err.message,
    "all 2 LLM sources failed: x: HTTP 401 Unauthorized: Incorrect API key provided; " +
      "y: HTTP 503 Service Unavailable: The server is overloaded",
  );
  assert.equal(y.requests.length, 2);
  y.enqueue({ status: 503 }, { status: 503 });
  const again = await m.chat(req).catch((e) => e);
  assert.match(again.message, /^all 2 LLM sources failed: x: unavailable after HTTP 401 Unauthorized: .*; y: /);
});

test("a 400 moves on to the next source without retrying", async () => {
  const [x, y] = await fresh();
  const m = new ProviderManager({ retryDelayMs: 20 });
  m.setSources([source("x", x), source("y", y)]);
  x.enqueue({ status: 400 });
  assert.equal((await m.stream(req)).content, "ok");
  assert.equal(x.requests.length, 1);
  assert.equal(m.sources()[0].available, true);
});

test("abort during a delayed response stops at once: no retry, no fallback", async () => {
  const [x, y] = await fresh();
  const m = new ProviderManager({ retryDelayMs: 20 });
  m.setSources([source("x", x), source("y", y)]);
  x.enqueue({ text: "too late", delayMs: 3000 });
  const controller = new AbortController();
  let abortedAt = 0;
  // Aborted once the request is out (starting the adapter's Lua worker comes first and takes its time).
  void x
    .waitForRequests(1)
    .then(() => {
      abortedAt = Date.now();
      controller.abort();
    })
    .catch(() => {});
  const err = await m.stream(req, { signal: controller.signal }).catch((e) => e);
  assert.ok(err instanceof ProviderError && err.kind === "aborted", String(err));
  assert.ok(Date.now() - abortedAt < 1000, "abort took too long");
  await waitFor(() => x.requests[0]?.aborted === true, "the request to be cancelled", { timeoutMs: 2000 });
  assert.equal(x.requests.length, 1);
  assert.equal(y.requests.length, 0);
});

test("a stream dying midway keeps the partial text instead of asking again", async () => {
  const [x, y] = await fresh();
  const m = new ProviderManager({ retryDelayMs: 20 });
  m.setSources([source("x", x), source("y", y)]);
  x.enqueue({
    text: "The first part arrives, the rest never does.",
    toolCalls: [{ name: "late_tool", arguments: { a: 1 } }],
    dieAfterChars: 10,
  });
  const seen: string[] = [];
  const reply = await m.stream(req, { onChunk: (c) => seen.push(c.content) });
  assert.equal(reply.finish_reason, "interrupted");
  assert.ok(reply.content.length >= 10 && "The first part arrives".startsWith(reply.content), reply.content);
  assert.equal(reply.content, seen.join(""));
  assert.deepEqual(reply.tool_calls, []);
  assert.equal(x.requests.length, 1);
  assert.equal(y.requests.length, 0);
});

test("a stream that breaks before any content falls back to a plain chat on the same source", async () => {
  const [x, y] = await fresh();
  const m = new ProviderManager({ retryDelayMs: 20 });
  m.setSources([source("x", x), source("y", y)]);
  x.enqueue({ text: "never seen", dieAfterChars: 0 }, { text: "whole answer" });
  const seen: string[] = [];
  const reply = await m.stream(req, { onChunk: (c) => seen.push(c.content) });
  assert.equal(reply.content, "whole answer");
  assert.equal(seen.join(""), "whole answer");
  assert.deepEqual(
    x.requests.map((r) => r.body.stream === true),
    [true, false],
  );
  assert.equal(y.requests.length, 0);
});

test("a hung first byte times out once and the next source answers", async () => {
  const [x, y] = await fresh();
  const m = new ProviderManager({ retryDelayMs: 20 });
  const slow = new LuaAdaptedProvider({
    sourceName: "x",
    adapterName: "openai",
    adapterSource: OPENAI,
    baseUrl: x.url,
    model: "model-x",
    firstByteTimeoutMs: 150,
  });
  m.setSources([{ name: "x", provider: slow, priority: 0 }, source("y", y, 1)]);
  x.enqueue({ text: "too late", delayMs: 10_000 });
  const started = Date.now();
  const reply = await m.stream(req);
  assert.equal(reply.content, "ok");
  // Far below the server's delay; the margin covers starting two adapters' Lua workers on a busy machine.
  assert.ok(Date.now() - started < 5000, "the timeout is neither retried nor repeated without streaming");
  assert.equal(x.requests.length, 1);
  assert.match(m.sources()[0].lastError ?? "", /no response from x within 150 ms/);
  assert.equal(m.sources()[0].state, "cooling_down");
});

test("garbage instead of JSON names adapter and source, and the next source answers", async () => {
  const [x, y] = await fresh();
  const m = new ProviderManager({ retryDelayMs: 20 });
  m.setSources([source("x", x), source("y", y)]);
  x.enqueue({ garbage: true });
  y.enqueue({ garbage: true });
  const err = await m.chat(req).catch((e) => e);
  assert.ok(err instanceof AllProvidersFailedError);
  assert.match(err.message, /^all 2 LLM sources failed: x: adapter openai \(source x\) could not parse the response/);
  assert.match(err.message, /; y: adapter openai \(source y\) could not parse/);
  assert.deepEqual(
    m.sources().map((s) => s.state),
    ["cooling_down", "cooling_down"],
  );
  // Both cool down; the next call still tries them, soonest cooldown first, and x has recovered.
  assert.equal((await m.chat(req)).content, "ok");
  assert.deepEqual([x.requests.length, y.requests.length], [2, 1]);
});

test("reasoning streamed before a broken stream is voided (onRestart) before the plain chat's answer", async () => {
  const [x] = await fresh();
  const m = new ProviderManager();
  m.setSources([source("x", x)]);
  x.enqueue(
    { reasoning: "thinking hard about it", text: "never seen", dieAfterChars: 10 },
    { reasoning: "again", text: "42" },
  );
  const seen: string[] = [];
  const res = await m.stream(req, {
    onChunk: (c) => {
      if (c.reasoning_content) seen.push(`r:${c.reasoning_content}`);
      if (c.content) seen.push(`c:${c.content}`);
    },
    onRestart: () => seen.push("restart"),
  });
  assert.equal(res.content, "42");
  const restartAt = seen.indexOf("restart");
  assert.ok(restartAt > 0, `reasoning came first, then a restart: ${seen.join(" | ")}`);
  assert.ok(seen.slice(0, restartAt).every((s) => s.startsWith("r:")));
  assert.deepEqual(seen.slice(restartAt + 1), ["r:again", "c:42"]);
});

test("a stream that delivered nothing restarts silently", async () => {
  const [x] = await fresh();
  const m = new ProviderManager();
  m.setSources([source("x", x)]);
  x.enqueue({ text: "abc", dieAfterChars: 0 }, { text: "fine" });
  let restarts = 0;
  const res = await m.stream(req, { onRestart: () => restarts++ });
  assert.equal(res.content, "fine");
  assert.equal(restarts, 0);
});
