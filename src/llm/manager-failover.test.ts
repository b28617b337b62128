/**
 * ProviderManager policies with scripted in-process providers and an injected clock: cooldown steps and
 * re-probing, retry-after, max_concurrent, preferred source, exact model, state kept across setSources,
 * tools left out for models without tool support. Wire-level faults are in manager.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../test/fixtures/wait.js";
import type { CompletionRequest, CompletionResponse, StreamChunk } from "../kernel/llm-spec.js";
import { AllProvidersFailedError, ProviderManager } from "./manager.js";
import { type CallOptions, type Provider, ProviderError } from "./provider.js";
import type { SourceEntry } from "./source-state.js";

type Step = CompletionResponse | Error | ((req: CompletionRequest, opts: CallOptions) => Promise<CompletionResponse>);

class ScriptProvider implements Provider {
  readonly calls: CompletionRequest[] = [];
  readonly steps: Step[] = [];
  constructor(
    readonly name: string,
    readonly model = `${name}-model`,
  ) {}
  script(...steps: Step[]): this {
    this.steps.push(...steps);
    return this;
  }
  async chat(req: CompletionRequest, opts: CallOptions = {}): Promise<CompletionResponse> {
    this.calls.push(req);
    const step = this.steps.shift() ?? reply(`from ${this.name}`);
    if (step instanceof Error) throw step;
    return typeof step === "function" ? step(req, opts) : step;
  }
  async *chatStream(req: CompletionRequest, opts: CallOptions = {}): AsyncGenerator<StreamChunk> {
    const r = await this.chat(req, opts);
    yield { content: r.content, reasoning_content: "", done: true, usage: null, tool_calls: [] };
  }
}

function reply(content: string): CompletionResponse {
  return { content, reasoning_content: "", finish_reason: "stop", token_usage: null, tool_calls: [] };
}

const down = () => new ProviderError("HTTP 503 Service Unavailable", "transient", { status: 503 });
const req: CompletionRequest = { model: "", messages: [{ role: "user", content: "hi" }] };

function setup(providers: ScriptProvider[], extra: Partial<SourceEntry>[] = []) {
  let now = 1_000_000;
  const notices: string[] = [];
  const m = new ProviderManager({
    retryDelayMs: 1,
    now: () => now,
    onNotice: (n) => notices.push(n.message),
  });
  m.setSources(providers.map((p, i) => ({ name: p.name, provider: p, priority: i, ...extra[i] })));
  return { m, notices, advance: (ms: number) => (now += ms), now: () => now };
}

test("a failing source cools down 1 min → 5 min → 25 min → 1 h and is re-probed after each", async () => {
  const a = new ScriptProvider("a");
  const b = new ScriptProvider("b");
  const { m, advance, now } = setup([a, b]);
  const expected = [60_000, 300_000, 1_500_000, 3_600_000, 3_600_000];
  for (const step of expected) {
    a.script(down(), down());
    assert.equal((await m.chat(req)).content, "from b");
    const s = m.sources()[0];
    assert.equal(s.state, "cooling_down");
    assert.equal(s.available, false);
    assert.equal(s.cooldownUntil, now() + step);
    const before = a.calls.length;
    assert.equal((await m.chat(req)).content, "from b", "skipped while cooling down");
    assert.equal(a.calls.length, before);
    advance(step);
  }
  // After the last cooldown it is asked again, and one success clears everything.
  assert.equal((await m.chat(req)).content, "from a");
  assert.deepEqual(
    [m.sources()[0].state, m.sources()[0].lastError, m.sources()[0].cooldownUntil],
    ["ready", undefined, undefined],
  );
  a.script(down(), down());
  await m.chat(req);
  assert.equal(m.sources()[0].cooldownUntil, now() + 60_000, "the steps start over after a success");
});

test("when every source is cooling down, each is still tried once before giving up", async () => {
  const a = new ScriptProvider("a").script(down(), down());
  const { m } = setup([a]);
  await assert.rejects(m.chat(req), AllProvidersFailedError);
  assert.equal(a.calls.length, 2);
  assert.equal((await m.chat(req)).content, "from a", "a local server that came back is used at once");
  assert.equal(a.calls.length, 3);
  assert.equal(m.sources()[0].state, "ready");
  a.script(down(), down(), down());
  await assert.rejects(m.chat(req), /all 1 LLM sources failed: a: HTTP 503/);
  const calls = a.calls.length;
  await assert.rejects(m.chat(req));
  assert.equal(a.calls.length, calls + 1, "a last-resort try is a single attempt");
});

test("429 with a short retry-after waits and retries the same source", async () => {
  const a = new ScriptProvider("a").script(
    new ProviderError("HTTP 429", "transient", { status: 429, retryAfterMs: 50 }),
    reply("after wait"),
  );
  const b = new ScriptProvider("b");
  const { m } = setup([a, b]);
  const started = Date.now();
  assert.equal((await m.chat(req)).content, "after wait");
  assert.ok(Date.now() - started >= 45, "waited for retry-after");
  assert.equal(b.calls.length, 0);
});

test("429 with a retry-after beyond the cap moves on and cools the source down that long", async () => {
  const a = new ScriptProvider("a").script(
    new ProviderError("HTTP 429", "transient", { status: 429, retryAfterMs: 120_000 }),
  );
  const b = new ScriptProvider("b");
  const { m, now } = setup([a, b]);
  assert.equal((await m.chat(req)).content, "from b");
  assert.equal(a.calls.length, 1);
  assert.equal(m.sources()[0].cooldownUntil, now() + 120_000);
});

test("401 disables until the source's configuration changes; an unchanged source keeps its state", async () => {
  const a = new ScriptProvider("a").script(new ProviderError("HTTP 401", "auth", { status: 401 }));
  const b = new ScriptProvider("b").script(down(), down());
  const { m } = setup([a, b]);
  await assert.rejects(m.chat(req), /a: HTTP 401; b: HTTP 503/);
  const entries = (fa: string, fb: string): SourceEntry[] => [
    { name: "a", provider: a, priority: 0, fingerprint: fa },
    { name: "b", provider: b, priority: 1, fingerprint: fb },
  ];
  m.setSources(entries("a1", "b1"));
  // Fingerprints appear for the first time: both start afresh.
  assert.deepEqual(
    m.sources().map((s) => s.state),
    ["ready", "ready"],
  );
  a.script(new ProviderError("HTTP 401", "auth", { status: 401 }));
  b.script(down(), down());
  await assert.rejects(m.chat(req));
  m.setSources(entries("a1", "b1"));
  assert.deepEqual(
    m.sources().map((s) => s.state),
    ["unavailable", "cooling_down"],
    "unchanged: state kept",
  );
  m.setSources(entries("a2-new-key", "b1"));
  assert.deepEqual(
    m.sources().map((s) => s.state),
    ["ready", "cooling_down"],
    "changed: reset",
  );
});

test("a reply the adapter cannot read cools the source down; a 400 does not", async () => {
  const a = new ScriptProvider("a").script(
    new ProviderError("adapter openai (source a) could not parse the response", "fatal"),
    new ProviderError("HTTP 400 Bad Request", "fatal", { status: 400 }),
  );
  const { m, advance } = setup([a, new ScriptProvider("b")]);
  assert.equal((await m.chat(req)).content, "from b");
  assert.equal(a.calls.length, 1, "no retry of an unreadable reply");
  assert.equal(m.sources()[0].state, "cooling_down");
  advance(60_000);
  assert.equal((await m.chat(req)).content, "from b");
  assert.equal(m.sources()[0].state, "ready");
});

test("a context-length error goes straight back to the caller", async () => {
  const a = new ScriptProvider("a").script(
    new ProviderError("HTTP 400: maximum context length", "context_length", { status: 400 }),
  );
  const b = new ScriptProvider("b");
  const { m } = setup([a, b]);
  await assert.rejects(m.chat(req), (err: unknown) => err instanceof ProviderError && err.kind === "context_length");
  assert.equal(b.calls.length, 0);
  assert.equal(m.sources()[0].state, "ready");
});

test("max_concurrent: excess calls wait their turn, and a waiting call can be aborted", async () => {
  let running = 0;
  let peak = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slow = () => async () => {
    running++;
    peak = Math.max(peak, running);
    await gate;
    running--;
    return reply("done");
  };
  const a = new ScriptProvider("a").script(slow(), slow(), slow(), slow(), slow());
  const { m } = setup([a], [{ maxConcurrent: 2 }]);
  const controller = new AbortController();
  const results = Promise.all([1, 2, 3, 4].map(() => m.chat(req)));
  const aborted = m.chat(req, { signal: controller.signal }).catch((e) => e);
  await waitFor(() => running === 2, "two calls running");
  assert.equal(m.sources()[0].inFlight, 2);
  controller.abort();
  const err = await aborted;
  assert.ok(err instanceof ProviderError && err.kind === "aborted");
  release();
  assert.deepEqual(
    (await results).map((r) => r.content),
    ["done", "done", "done", "done"],
  );
  assert.equal(peak, 2);
  assert.equal(a.calls.length, 4, "the aborted call never reached the provider");
  assert.equal(m.sources()[0].inFlight, 0);
});

test("the preferred source goes first; an exact model picks the source serving it", async () => {
  const a = new ScriptProvider("a", "small");
  const b = new ScriptProvider("b", "large");
  const { m } = setup([a, b]);
  assert.equal((await m.chat(req)).content, "from a");
  m.setPreferred("b");
  assert.equal((await m.chat(req)).content, "from b");
  assert.equal((await m.chat({ ...req, model: "AUTO" })).content, "from b");
  assert.equal((await m.chat({ ...req, model: "small" })).content, "from a");
  assert.deepEqual(
    m.sources().map((s) => s.preferred),
    [false, true],
  );
  assert.throws(() => m.setPreferred("nope"), /no LLM source named "nope"; the sources are: a, b/);
  await assert.rejects(
    m.chat({ ...req, model: "huge" }),
    /no LLM source serves model "huge"; the sources are: a \(small\), b \(large\)/,
  );
  m.setPreferred("");
  assert.equal((await m.chat(req)).content, "from a");
});

test("tools are never sent to a model that cannot take them; said once", async () => {
  const a = new ScriptProvider("a");
  const b = new ScriptProvider("b");
  const { m, notices } = setup([a, b], [{}, { supportsTools: true }]);
  const withTools: CompletionRequest = {
    ...req,
    tools: [{ type: "function", function: { name: "t", description: "", parameters: {} } }],
    tool_choice: "auto",
  };
  await m.chat(withTools);
  assert.equal(a.calls[0].tools?.length, 1, "unknown support: tools sent");
  m.setSourceInfo("a", { supportsTools: false, contextWindow: 4096 });
  await m.chat(withTools);
  await m.chat(withTools);
  assert.equal(a.calls[1].tools, undefined);
  assert.equal(a.calls[1].tool_choice, undefined);
  assert.equal(notices.length, 1);
  assert.match(notices[0], /a: model a-model does not support tools/);
  assert.deepEqual(
    m.sources().map((s) => [s.supportsTools, s.contextWindow]),
    [
      [false, 4096],
      [true, 0],
    ],
  );
  assert.equal(m.contextWindow(), 4096);
});

test("a source's thinking_enabled turns thinking on for it alone", async () => {
  const a = new ScriptProvider("a");
  const { m } = setup([a], [{ thinkingEnabled: true }]);
  await m.chat({ ...req, disable_thinking: true });
  assert.equal(a.calls[0].disable_thinking, false);
});

test("a retry delay given as a function is asked at each retry: a changed core.llm.retry_delay needs no restart", async () => {
  let delay = 1;
  const asked: number[] = [];
  const m = new ProviderManager({
    retryDelayMs: () => {
      asked.push(delay);
      return delay;
    },
  });
  const a = new ScriptProvider("a").script(down(), reply("one"), down(), reply("two"));
  m.setSources([{ name: "a", provider: a, priority: 0 }]);
  assert.equal((await m.chat(req)).content, "one");
  delay = 2;
  assert.equal((await m.chat(req)).content, "two");
  assert.deepEqual(asked, [1, 2]);
});
