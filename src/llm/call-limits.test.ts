/**
 * Issue 7 defect 3, the LLM side: once a reply has begun, every call still has an end. A misbehaving fake
 * server (real HTTP) plays each way a provider can hold a turn forever or flood the daemon: a stream that
 * never ends, a slow-loris, a stall mid-reply, an endless line, an oversized reply or error body. Each
 * case must end soon with a clear outcome, and the server must see the connection closed.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, test } from "node:test";
import { drainStream, streamText } from "../../test/fixtures/adapter-harness.js";
import { type FakeLLM, type RecordedRequest, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import { waitFor } from "../../test/fixtures/wait.js";
import type { CompletionRequest, StreamChunk } from "../kernel/llm-spec.js";
import { LuaVM } from "../lua/vm.js";
import { HomeAgentError } from "../util/errors.js";
import { LuaAdaptedProvider, type LuaAdaptedProviderOptions } from "./lua-provider.js";
import { ProviderManager } from "./manager.js";
import { type Provider, ProviderError, ProviderTimeoutError } from "./provider.js";

const OPENAI = readFileSync(new URL("./adapters/openai.lua", import.meta.url), "utf8");
const OLLAMA = readFileSync(new URL("./adapters/ollama.lua", import.meta.url), "utf8");
const KiB = 1024;
const MiB = 1024 * KiB;
let fake: FakeLLM;
// One Lua state for every provider of this file: starting one per provider would make the first call of
// each slow, and these tests time calls.
let vm: LuaVM;

before(async () => {
  fake = await startFakeLLM();
  vm = await LuaVM.create({ kind: "adapter" });
  // The first calls into a fresh Lua state are the slowest: pay for them once, outside any tight limit.
  await provider({ firstByteTimeoutMs: 0, idleTimeoutMs: 0, callTimeoutMs: 0 });
});
after(async () => {
  await fake.close();
  await vm.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

/**
 * A provider with small limits (tests override the one they exercise), warmed up by one good stream so its
 * adapter is loaded and the limits measure only the server's behaviour.
 */
async function provider(over: Partial<LuaAdaptedProviderOptions> = {}): Promise<LuaAdaptedProvider> {
  const p = new LuaAdaptedProvider({
    sourceName: "main",
    adapterName: "openai",
    adapterSource: OPENAI,
    baseUrl: fake.url,
    model: "fake-model",
    vm,
    firstByteTimeoutMs: 2000,
    idleTimeoutMs: 2000,
    callTimeoutMs: 5000,
    ...over,
  });
  fake.enqueue({ text: "warm" });
  const warm = await drainStream(p.chatStream(request));
  assert.equal(warm.error, undefined);
  assert.equal(streamText(warm.chunks), "warm");
  fake.requests.length = 0;
  return p;
}

/** Without the limits these cases never end: the test fails instead of hanging. */
const ENDS = { timeout: 15_000 };

const request: CompletionRequest = { model: "", messages: [{ role: "user", content: "hi" }] };

async function closedByClient(i = 0): Promise<RecordedRequest> {
  await waitFor(() => fake.requests[i]?.aborted, `the server to see request ${i} aborted by the client`);
  return fake.requests[i];
}

/** The error a promise rejects with (undefined if it resolves). */
function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe("a provider call ends once it has begun", () => {
  test("a never-ending stream ends at the call deadline, after the text that came", ENDS, async () => {
    const p = await provider({ idleTimeoutMs: 200, callTimeoutMs: 400 });
    fake.enqueue({ text: "more ", endless: true, frameIntervalMs: 5 });
    const { chunks, error } = await drainStream(p.chatStream(request));
    assert.ok(error instanceof ProviderTimeoutError, `expected a timeout, got ${error}`);
    assert.equal(error.limit, "call");
    assert.equal(error.kind, "transient");
    assert.equal(error.message, "main did not finish its reply within 400 ms (core.llm.call_timeout)");
    assert.match(streamText(chunks), /^more more (more )*/);
    await closedByClient();
  });

  test(
    "a slow-loris (a byte every few ms, never silent for the idle limit) ends at the call deadline",
    ENDS,
    async () => {
      const p = await provider({ idleTimeoutMs: 200, callTimeoutMs: 400 });
      fake.enqueue({ text: "slow", endless: true, trickleMs: 10 });
      const { error } = await drainStream(p.chatStream(request));
      assert.ok(error instanceof ProviderTimeoutError, `expected a timeout, got ${error}`);
      assert.equal(error.limit, "call");
      await closedByClient();
    },
  );

  test("a stream that goes silent after its first chunk ends at the idle limit", ENDS, async () => {
    const p = await provider({ idleTimeoutMs: 200 });
    fake.enqueue({ text: "hello", stallAfterChars: 0 });
    const { chunks, error } = await drainStream(p.chatStream(request));
    assert.ok(error instanceof ProviderTimeoutError, `expected a timeout, got ${error}`);
    assert.equal(error.limit, "idle");
    assert.equal(error.code, "llm_idle_timeout");
    assert.equal(
      error.message,
      "main sent nothing for 200 ms in the middle of its reply (core.llm.stream_idle_timeout)",
    );
    assert.equal(streamText(chunks), "");
    await closedByClient();
  });

  test("the idle limit counts only silences: a stream with short pauses completes", ENDS, async () => {
    const p = await provider({ idleTimeoutMs: 300 });
    fake.enqueue({ text: "steady pace", frameIntervalMs: 20 });
    const { chunks, error } = await drainStream(p.chatStream(request));
    assert.equal(error, undefined);
    assert.equal(streamText(chunks), "steady pace");
  });

  test(
    "an endless stream line without a line end fails at the line limit, reading a bounded amount",
    ENDS,
    async () => {
      const p = await provider({ maxLineBytes: 64 * KiB });
      fake.enqueue({ unterminated: true });
      const { error } = await drainStream(p.chatStream(request));
      assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${error}`);
      assert.equal(error.kind, "fatal");
      assert.equal(error.code, "stream_line_too_long");
      assert.match(error.message, /^adapter openai \(source main\): a stream line is longer than 64 KiB/);
      assert.ok(error.cause instanceof Error, "the line error is kept as the cause");
      const seen = await closedByClient();
      // The server got to write the line limit plus what the sockets buffer, not an endless body.
      assert.ok(seen.bytesSent < 32 * MiB, `the server wrote ${seen.bytesSent} bytes`);
    },
  );

  test("NDJSON streams have the same line limit", ENDS, async () => {
    const p = await provider({
      adapterName: "ollama",
      adapterSource: OLLAMA,
      baseUrl: fake.origin,
      maxLineBytes: 64 * KiB,
    });
    fake.enqueue({ unterminated: true });
    const { error } = await drainStream(p.chatStream(request));
    assert.ok(error instanceof ProviderError && error.code === "stream_line_too_long", `got ${error}`);
    await closedByClient();
  });

  test(
    "a 10 MB streamed reply over a 1 MiB limit is cut: the text so far is kept and the reply says so",
    ENDS,
    async () => {
      const p = await provider({ maxResponseBytes: MiB });
      fake.enqueue({ text: "x".repeat(10 * MiB), pieceChars: 64 * KiB });
      const { chunks, error } = await drainStream(p.chatStream(request));
      assert.equal(error, undefined);
      const note = "\n\n[reply cut: larger than 1 MiB (core.llm.max_response_bytes)]";
      assert.equal(streamText(chunks), "x".repeat(MiB) + note);
      const last = chunks.at(-1);
      assert.equal(last?.done, true);
      assert.equal(last?.finish_reason, "length");
      await closedByClient();
    },
  );

  test(
    "a stream of 120,000 tiny tool calls is cut at the reply limit: each call counts its overhead",
    ENDS,
    async () => {
      // The fake builds all 240,000 frames before its first byte: on a loaded machine that alone took more
      // than the 2 s first-byte limit of the other tests here, which is not what this one is about.
      const p = await provider({ maxResponseBytes: 128 * KiB, firstByteTimeoutMs: 30_000 });
      fake.enqueue({ toolCalls: Array.from({ length: 120_000 }, () => ({ name: "x", arguments: {} })) });
      const { chunks, error } = await drainStream(p.chatStream(request));
      assert.equal(error, undefined);
      const fragments = chunks.reduce((n, c) => n + c.tool_calls.length, 0);
      // A call is 3 bytes of text here: counting text alone, 128 KiB would let 43,000 through.
      assert.ok(fragments < (3 * 128 * KiB) / 128, `${fragments} tool-call fragments got through`);
      assert.equal(streamText(chunks), "\n\n[reply cut: larger than 128 KiB (core.llm.max_response_bytes)]");
      assert.equal(chunks.at(-1)?.finish_reason, "length");
      await closedByClient();
    },
  );

  test("the reply limit counts reasoning and never splits a character", ENDS, async () => {
    const p = await provider({ maxResponseBytes: 200 });
    fake.enqueue({ reasoning: "€".repeat(100), text: "after" });
    const { chunks } = await drainStream(p.chatStream(request));
    const reasoning = chunks.map((c) => c.reasoning_content).join("");
    assert.equal(reasoning, "€".repeat(66), "66 three-byte characters fit in 200 bytes");
    assert.equal(streamText(chunks), "\n\n[reply cut: larger than 200 bytes (core.llm.max_response_bytes)]");
  });

  test(
    "a whole (non-stream) reply over the limit is a clear error, and the body is not read further",
    ENDS,
    async () => {
      const p = await provider({ maxResponseBytes: MiB });
      fake.enqueue({ text: "y".repeat(8 * MiB) });
      const error = await failure(p.chat(request));
      assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${error}`);
      assert.equal(error.kind, "fatal");
      assert.equal(error.code, "llm_reply_too_large");
      assert.match(
        error.message,
        /^adapter openai \(source main\): the reply is larger than 1 MiB \(core\.llm\.max_response_bytes\); raise that setting/,
      );
      await closedByClient();
    },
  );

  test("an endless non-stream body fails at the reply limit", ENDS, async () => {
    const p = await provider({ maxResponseBytes: 128 * KiB });
    fake.enqueue({ unterminated: true });
    const error = await failure(p.chat(request));
    assert.ok(error instanceof ProviderError && error.code === "llm_reply_too_large", `got ${error}`);
    await closedByClient();
  });

  test("an endless error body is read only as far as its message needs", ENDS, async () => {
    const p = await provider();
    fake.enqueue({ status: 500, unterminated: true });
    const error = await failure(p.chat(request));
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${error}`);
    assert.equal(error.status, 500);
    assert.match(error.message, /^HTTP 500 Internal Server Error: x{300}…$/);
    await closedByClient();
  });
});

test("provider errors are HomeAgentErrors that keep what went wrong underneath as their cause", ENDS, async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const p = new LuaAdaptedProvider({
    sourceName: "gone",
    adapterName: "openai",
    adapterSource: OPENAI,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: "m",
    vm,
  });
  const error = await failure(p.chat(request));
  assert.ok(error instanceof HomeAgentError && error instanceof ProviderError, `got ${error}`);
  assert.equal(error.kind, "transient");
  assert.equal(error.code, "llm_transient");
  assert.match(error.message, /^cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: ECONNREFUSED$/);
  assert.ok(error.cause instanceof Error, "the fetch error is kept");
});

/** A manager over the given providers, in that order; retries are quick. */
function manager(...providers: Provider[]): ProviderManager {
  const llm = new ProviderManager({ retryDelayMs: 10 });
  llm.setSources(providers.map((p, i) => ({ name: p.name, provider: p, priority: i })));
  return llm;
}

describe("ProviderManager and the limits", () => {
  test("a reply cut at its size limit is a success with its note: no retry, no other source", ENDS, async () => {
    const llm = manager(
      await provider({ sourceName: "a", maxResponseBytes: MiB }),
      await provider({ sourceName: "b" }),
    );
    fake.enqueue({ text: "x".repeat(4 * MiB), pieceChars: 64 * KiB });
    const seen: StreamChunk[] = [];
    const reply = await llm.stream(request, { onChunk: (c) => seen.push(c) });
    assert.equal(reply.finish_reason, "length");
    assert.ok(reply.content.endsWith("x\n\n[reply cut: larger than 1 MiB (core.llm.max_response_bytes)]"));
    assert.equal(streamText(seen), reply.content, "listeners see the note too");
    assert.equal(fake.requests.length, 1);
    assert.deepEqual(
      llm.sources().map((s) => s.state),
      ["ready", "ready"],
    );
  });

  test("an idle timeout before any text is transient: no second try there, the next source answers", ENDS, async () => {
    const llm = manager(await provider({ sourceName: "a", idleTimeoutMs: 150 }), await provider({ sourceName: "b" }));
    fake.enqueue({ text: "never", stallAfterChars: 0 }, { text: "from b" });
    const reply = await llm.stream(request);
    assert.equal(reply.content, "from b");
    assert.equal(fake.requests.length, 2, "a is asked neither again nor without streaming");
    const [a] = llm.sources();
    assert.equal(a.state, "cooling_down");
    assert.match(a.lastError ?? "", /core\.llm\.stream_idle_timeout/);
    await closedByClient(0);
  });

  test("a never-ending stream keeps its text at the call deadline and says why it stops", ENDS, async () => {
    const llm = manager(await provider({ sourceName: "a", callTimeoutMs: 400 }), await provider({ sourceName: "b" }));
    fake.enqueue({ text: "more ", endless: true, frameIntervalMs: 5 });
    const seen: StreamChunk[] = [];
    const reply = await llm.stream(request, { onChunk: (c) => seen.push(c) });
    assert.match(reply.content, /^more more /);
    assert.ok(
      reply.content.endsWith("\n\n[reply cut: a did not finish its reply within 400 ms (core.llm.call_timeout)]"),
      reply.content,
    );
    assert.equal(reply.finish_reason, "interrupted");
    assert.equal(streamText(seen), reply.content);
    assert.equal(fake.requests.length, 1, "the partial reply is kept, not asked again elsewhere");
    await closedByClient(0);
  });

  test("a slow-loris with no text by the deadline moves on to the next source", ENDS, async () => {
    const llm = manager(
      await provider({ sourceName: "a", idleTimeoutMs: 200, callTimeoutMs: 400 }),
      await provider({ sourceName: "b" }),
    );
    fake.enqueue({ text: "slow", endless: true, trickleMs: 10 }, { text: "from b" });
    const reply = await llm.stream(request);
    assert.equal(reply.content, "from b");
    assert.equal(fake.requests.length, 2);
    await closedByClient(0);
  });
});
