/**
 * Providers that ProviderManager.setSources replaces (a settings change) and those left at close() are
 * closed once each, and never while a call on them is in flight; they used to be left to the garbage
 * collector with their Lua workers running.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { waitFor } from "../../test/fixtures/wait.js";
import type { CompletionRequest, CompletionResponse } from "../kernel/llm-spec.js";
import { ProviderManager } from "./manager.js";
import { type Provider, ProviderError } from "./provider.js";
import type { SourceEntry } from "./source-state.js";

const req: CompletionRequest = { model: "", messages: [{ role: "user", content: "hi" }] };

/** A provider whose calls wait until released, and which records how often, and when, it was closed. */
class ObservedProvider implements Provider {
  readonly name: string;
  readonly model = "m";
  inFlight = 0;
  closes = 0;
  closedWhileBusy = false;
  calls = 0;
  private pending: Array<() => void> = [];
  /** Calls that fail (transiently) before answering. */
  failFirst = 0;

  constructor(readonly generation: number) {
    this.name = `gen${generation}`;
  }

  async chat(): Promise<CompletionResponse> {
    this.calls++;
    if (this.failFirst > 0) {
      this.failFirst--;
      throw new ProviderError("503 from the fake", "transient", { status: 503 });
    }
    this.inFlight++;
    await new Promise<void>((resolve) => this.pending.push(resolve));
    this.inFlight--;
    return { content: this.name, reasoning_content: "", finish_reason: "stop", token_usage: null, tool_calls: [] };
  }

  // biome-ignore lint/correctness/useYield: these tests only use chat()
  async *chatStream(): AsyncGenerator<never> {
    throw new Error("not used");
  }

  release(): void {
    for (const resolve of this.pending.splice(0)) resolve();
  }

  close(): void {
    this.closes++;
    if (this.inFlight > 0) this.closedWhileBusy = true;
  }
}

function entry(provider: ObservedProvider): SourceEntry {
  return { name: "main", provider, priority: 0, fingerprint: `v${provider.generation}` };
}

test("every provider replaced by setSources is closed once, none while a call on it is in flight", async () => {
  const m = new ProviderManager();
  const providers: ObservedProvider[] = [];
  const calls: Array<Promise<CompletionResponse>> = [];
  for (let gen = 0; gen < 20; gen++) {
    const p = new ObservedProvider(gen);
    providers.push(p);
    m.setSources([entry(p)]);
    // Every other generation is busy when the next one replaces it.
    if (gen % 2 === 0) {
      calls.push(m.chat(req));
      await waitFor(() => p.inFlight === 1, `a call in flight on ${p.name}`);
    }
  }
  const busy = providers.filter((p) => p.generation % 2 === 0 && p.generation < 19);
  const idle = providers.filter((p) => p.generation % 2 === 1 && p.generation < 19);
  assert.deepEqual(
    idle.map((p) => p.closes),
    idle.map(() => 1),
    "idle replaced providers are closed at once",
  );
  assert.deepEqual(
    busy.map((p) => p.closes),
    busy.map(() => 0),
    "busy ones wait for their call",
  );
  for (const p of providers) p.release();
  const answers = await Promise.all(calls);
  assert.deepEqual(
    answers.map((a) => a.content),
    providers.filter((p) => p.generation % 2 === 0).map((p) => p.name),
    "a call in flight finishes on the provider it started on",
  );
  const current = providers[19];
  assert.deepEqual(
    providers.slice(0, 19).map((p) => [p.name, p.closes, p.closedWhileBusy]),
    providers.slice(0, 19).map((p) => [p.name, 1, false]),
  );
  assert.equal(current.closes, 0, "the provider in use stays open");

  const last = m.chat(req);
  await waitFor(() => current.inFlight === 1, "a call on the current provider");
  m.close();
  assert.equal(current.closes, 0, "close() waits for the call in flight");
  current.release();
  await last;
  assert.equal(current.closes, 1);
  assert.equal(current.closedWhileBusy, false);
  assert.equal(m.hasSources(), false);
});

test("a source with an unchanged fingerprint keeps its provider open", () => {
  const m = new ProviderManager();
  const p = new ObservedProvider(1);
  m.setSources([entry(p)]);
  m.setSources([{ ...entry(p), priority: 0 }]);
  assert.equal(p.closes, 0);
});

test("a call waiting to retry a replaced source goes on with its successor", async () => {
  const m = new ProviderManager({ retryDelayMs: 50 });
  const old = new ObservedProvider(1);
  old.failFirst = 1;
  m.setSources([entry(old)]);
  const call = m.chat(req);
  await waitFor(() => old.calls === 1, "the first attempt to fail");
  const successor = new ObservedProvider(2);
  m.setSources([entry(successor)]);
  assert.equal(old.closes, 1, "the replaced provider is idle between attempts, so it is closed");
  await waitFor(() => successor.inFlight === 1, "the retry on the successor");
  successor.release();
  assert.equal((await call).content, "gen2");
  assert.equal(old.calls, 1, "the closed provider is not called again");
});
