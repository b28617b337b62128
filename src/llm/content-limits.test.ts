/**
 * Hostile review, finding 4: progress in a stream is content, not bytes on the wire. A server that keeps its
 * connection busy with keep-alives (SSE comments, empty deltas, pings, empty NDJSON messages) but never says
 * anything fails over after core.llm.first_content_timeout, and once content has begun, keep-alives do not
 * reset core.llm.stream_idle_timeout. Real HTTP against the fake LLM, in every wire format.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, beforeEach, describe, test } from "node:test";
import { drainStream, streamText } from "../../test/fixtures/adapter-harness.js";
import { type FakeLLM, type FakeStep, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import { waitFor } from "../../test/fixtures/wait.js";
import type { CompletionRequest } from "../kernel/llm-spec.js";
import { LuaVM } from "../lua/vm.js";
import { LuaAdaptedProvider, type LuaAdaptedProviderOptions } from "./lua-provider.js";
import { ProviderManager } from "./manager.js";
import { ProviderTimeoutError } from "./provider.js";

const adapter = (name: string) => readFileSync(new URL(`./adapters/${name}.lua`, import.meta.url), "utf8");
const FORMATS = {
  openai: { adapterName: "openai", adapterSource: adapter("openai") },
  anthropic: { adapterName: "anthropic", adapterSource: adapter("anthropic") },
  gemini: { adapterName: "gemini", adapterSource: adapter("gemini") },
  ollama: { adapterName: "ollama", adapterSource: adapter("ollama") },
};
type Format = keyof typeof FORMATS;

let fake: FakeLLM;
let vm: LuaVM;

before(async () => {
  fake = await startFakeLLM();
  vm = await LuaVM.create({ kind: "adapter" });
  // The process's first stream is slow (the VM's first adapter, the HTTP stack): one without the small
  // limits, so that every provider's own warm-up below fits them even on a busy machine.
  fake.enqueue({ text: "warm" });
  const first = new LuaAdaptedProvider({ sourceName: "warm", ...FORMATS.openai, baseUrl: fake.url, model: "m", vm });
  assert.equal(streamText((await drainStream(first.chatStream(request))).chunks), "warm");
});
after(async () => {
  await fake.close();
  await vm.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

/** Small limits, except the call deadline: without the content limits these cases run into it (or the test's). */
const LIMITS = { firstByteTimeoutMs: 2000, firstContentTimeoutMs: 200, idleTimeoutMs: 200, callTimeoutMs: 60_000 };
const ENDS = { timeout: 15_000 };
const KEEP_ALIVE_MS = 10;

/** A provider of `format`, warmed up by one good stream so that the limits measure only the server. */
async function provider(format: Format, over: Partial<LuaAdaptedProviderOptions> = {}): Promise<LuaAdaptedProvider> {
  const p = new LuaAdaptedProvider({
    sourceName: "main",
    ...FORMATS[format],
    baseUrl: format === "openai" ? fake.url : fake.origin,
    model: "fake-model",
    vm,
    ...LIMITS,
    ...over,
  });
  fake.enqueue({ text: "warm" });
  assert.equal(streamText((await drainStream(p.chatStream(request))).chunks), "warm");
  fake.requests.length = 0;
  return p;
}

const request: CompletionRequest = { model: "", messages: [{ role: "user", content: "hi" }] };

async function closedByClient(i = 0): Promise<void> {
  await waitFor(() => fake.requests[i]?.aborted, `the server to see request ${i} aborted by the client`);
}

/** Only keep-alives from the start, never a word. */
const keepAliveOnly = (keepAlive: FakeStep["keepAlive"]): FakeStep => ({
  text: "never",
  keepAliveMs: KEEP_ALIVE_MS,
  keepAlive,
});

/** "hello", then only keep-alives. */
const helloThenKeepAlive = (keepAlive: FakeStep["keepAlive"]): FakeStep => ({
  text: "hello world",
  pieceChars: 5,
  stallAfterChars: 5,
  keepAliveMs: KEEP_ALIVE_MS,
  keepAlive,
});

function assertTimeout(error: unknown, limit: ProviderTimeoutError["limit"]): asserts error is ProviderTimeoutError {
  assert.ok(error instanceof ProviderTimeoutError, `expected a timeout, got ${error}`);
  assert.equal(error.limit, limit, error.message);
  assert.equal(error.kind, "transient");
}

describe("keep-alives before any content end at core.llm.first_content_timeout", () => {
  const cases: Array<[string, Format, FakeStep["keepAlive"]]> = [
    ["OpenAI-compatible `: keepalive` comments", "openai", "comment"],
    ["OpenAI-compatible empty deltas", "openai", "empty"],
    ["Anthropic pings", "anthropic", "empty"],
    ["Anthropic SSE comments", "anthropic", "comment"],
    ["Gemini events with an empty text part", "gemini", "empty"],
    ["Ollama NDJSON messages with empty content", "ollama", "empty"],
    ["Ollama blank NDJSON lines", "ollama", "comment"],
  ];
  for (const [what, format, keepAlive] of cases) {
    test(what, ENDS, async () => {
      const p = await provider(format);
      fake.enqueue(keepAliveOnly(keepAlive));
      const { chunks, error } = await drainStream(p.chatStream(request));
      assertTimeout(error, "first_content");
      assert.equal(error.code, "llm_first_content_timeout");
      assert.equal(
        error.message,
        "main sent no text, reasoning or tool call within 200 ms of the request; keep-alives and empty chunks do not count (core.llm.first_content_timeout)",
      );
      assert.equal(streamText(chunks), "");
      await closedByClient();
    });
  }

  test("text of white space alone keeps nothing alive: one space a tick ends at the limit", ENDS, async () => {
    const p = await provider("openai");
    fake.enqueue({ text: " ".repeat(200), pieceChars: 1, frameIntervalMs: 20 });
    const { error } = await drainStream(p.chatStream(request));
    assertTimeout(error, "first_content");
    await closedByClient();
  });

  test(
    "reasoning is content: a model that thinks longer than the limit before its answer completes",
    ENDS,
    async () => {
      const p = await provider("openai");
      fake.enqueue({ reasoning: "thinking ".repeat(3), pieceChars: 3, text: "answer", frameIntervalMs: 40 });
      const { chunks, error } = await drainStream(p.chatStream(request));
      assert.equal(error, undefined);
      assert.equal(streamText(chunks), "answer");
    },
  );
});

describe("after content, keep-alives do not reset core.llm.stream_idle_timeout", () => {
  const cases: Array<[string, Format, FakeStep["keepAlive"]]> = [
    ["OpenAI-compatible `: keepalive` comments", "openai", "comment"],
    ["OpenAI-compatible empty deltas", "openai", "empty"],
    ["Anthropic pings", "anthropic", "empty"],
    ["Gemini events with an empty text part", "gemini", "empty"],
    ["Ollama NDJSON messages with empty content", "ollama", "empty"],
  ];
  for (const [what, format, keepAlive] of cases) {
    test(what, ENDS, async () => {
      const p = await provider(format);
      fake.enqueue(helloThenKeepAlive(keepAlive));
      const { chunks, error } = await drainStream(p.chatStream(request));
      assertTimeout(error, "idle");
      assert.equal(
        error.message,
        "main sent no new content for 200 ms in the middle of its reply, at most keep-alives (core.llm.stream_idle_timeout)",
      );
      assert.equal(streamText(chunks), "hello");
      await closedByClient();
    });
  }

  test("a steady stream slower than the idle limit in total completes: each piece restarts it", ENDS, async () => {
    const p = await provider("openai");
    fake.enqueue({ text: "one two three four five six", pieceChars: 4, frameIntervalMs: 45 });
    const { chunks, error } = await drainStream(p.chatStream(request));
    assert.equal(error, undefined);
    assert.equal(streamText(chunks), "one two three four five six");
  });
});

describe("ProviderManager and the content limits", () => {
  function manager(...providers: LuaAdaptedProvider[]): ProviderManager {
    const llm = new ProviderManager({ retryDelayMs: 10 });
    llm.setSources(providers.map((p, i) => ({ name: p.name, provider: p, priority: i })));
    return llm;
  }

  test("a source that only keeps alive fails over to the next one, like a hung source", ENDS, async () => {
    const llm = manager(await provider("openai", { sourceName: "a" }), await provider("openai", { sourceName: "b" }));
    fake.enqueue(keepAliveOnly("comment"), { text: "from b" });
    const reply = await llm.stream(request);
    assert.equal(reply.content, "from b");
    assert.equal(reply.source, "b");
    assert.equal(fake.requests.length, 2, "a is asked neither again nor without streaming");
    const [a] = llm.sources();
    assert.equal(a.state, "cooling_down");
    assert.match(a.lastError ?? "", /core\.llm\.first_content_timeout/);
    await closedByClient(0);
  });

  test("content followed by keep-alives is kept, with a note naming the limit", ENDS, async () => {
    const llm = manager(await provider("openai", { sourceName: "a" }), await provider("openai", { sourceName: "b" }));
    fake.enqueue(helloThenKeepAlive("empty"));
    const reply = await llm.stream(request);
    assert.equal(
      reply.content,
      "hello\n\n[reply cut: a sent no new content for 200 ms in the middle of its reply, at most keep-alives (core.llm.stream_idle_timeout)]",
    );
    assert.equal(reply.finish_reason, "interrupted");
    assert.equal(fake.requests.length, 1, "the partial reply is kept, not asked again elsewhere");
  });
});
