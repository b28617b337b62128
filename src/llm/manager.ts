/**
 * ProviderManager: ordered fallback over the configured LLM sources (inventory §3.4).
 *
 * Order: the preferred source (`/llm use`), then priority (lowest first), then registration order; a request
 * naming an exact model only goes to the sources serving that model. Per source:
 * - 401/403 → unavailable until its configuration changes (setSources with a new fingerprint) or a reset;
 * - 429 with a retry-after up to `maxRetryAfterMs` → wait that long and retry; longer → cool down that long;
 * - 5xx / network → one retry after `retryDelayMs`, then the source cools down 1 min → 5 min → 25 min → 1 h
 *   (consecutive failures) and the next one is tried; a reply the adapter cannot read cools it down too;
 * - a time limit (no first byte, no content but keep-alives, no new content mid-reply, the whole-call
 *   deadline) → no second try there (it would double the wait): the source cools down and the next one is
 *   tried; a stream stopped by a limit after text arrived keeps that text and ends with a note naming the
 *   limit. A reply cut at its size limit is a success (the provider ends it with its own note), marked
 *   `cut` so its tool calls never run;
 * - other 4xx → the next source, no state change (the request, not the source, is at fault);
 * - "context_length" → thrown to the caller at once, which prunes the request and asks again.
 * Cooling sources are skipped, but tried once each as a last resort before giving up, so a single local
 * server that blinked is not refused for a minute. The caller's abort ends everything at once.
 *
 * A source that setSources replaces (or close() ends) is retired: its provider is closed as soon as its last
 * call in flight has ended — counted by the source's own slot semaphore — rather than left to the garbage
 * collector, and a call that was between two attempts on it goes on with its successor.
 */
import type { LlmSourceStatus, Logger } from "@homeagent/sdk";
import { NO_SOURCE_CONFIGURED } from "../config/sources.js";
import type { CompletionRequest, CompletionResponse, UnifiedUsage } from "../kernel/llm-spec.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { type CallOptions, type Provider, ProviderError } from "./provider.js";
import {
  newSource,
  type Source,
  type SourceEntry,
  SourceHealth,
  type SourceHealthOptions,
  type SourceInfo,
  sourceStatus,
  supportsTools,
  windowOf,
} from "./source-state.js";
import { isAbort, StreamAttempts, type StreamOptions } from "./stream-attempt.js";

export type SourceStatus = LlmSourceStatus;

/** Retry pauses, cooldown steps and the clock are the sources' health options (source-state.ts). */
export interface ProviderManagerOptions extends SourceHealthOptions {
  /** Told once per source when its tools are left out; the daemon turns it into a system event. */
  onNotice?: (notice: { kind: "tools_unsupported"; source: string; model: string; message: string }) => void;
  /** Told after every successful call, with the usage the provider reported (the daemon's usage meter). */
  onCall?: (source: string, usage: UnifiedUsage | null) => void;
}

export class NoSourceError extends HomeAgentError {
  constructor() {
    super({ code: "llm_no_source", message: NO_SOURCE_CONFIGURED });
  }
}

export class AllProvidersFailedError extends HomeAgentError {
  constructor(readonly failures: ReadonlyArray<{ source: string; reason: string }>) {
    super({
      code: "llm_all_failed",
      message: `all ${failures.length} LLM sources failed: ${failures.map((f) => `${f.source}: ${f.reason}`).join("; ")}`,
    });
  }
}

const ATTEMPTS_PER_SOURCE = 2;

export class ProviderManager {
  private list: Source[] = [];
  private preferred = "";
  private readonly health: SourceHealth;
  private readonly now: () => number;
  private readonly log?: Logger;
  private readonly onNotice?: ProviderManagerOptions["onNotice"];
  private readonly onCall?: ProviderManagerOptions["onCall"];

  constructor(opts: ProviderManagerOptions = {}) {
    this.health = new SourceHealth(opts);
    this.now = opts.now ?? Date.now;
    this.log = opts.log;
    this.onNotice = opts.onNotice;
    this.onCall = opts.onCall;
  }

  /** Replaces the sources. One whose fingerprint is unchanged keeps its provider and state. */
  setSources(entries: SourceEntry[]): void {
    const old = new Map(this.list.map((s) => [s.entry.name, s]));
    const previous = this.list;
    this.list = entries
      .map((entry, order) => ({ entry, order }))
      .sort((a, b) => a.entry.priority - b.entry.priority || a.order - b.order)
      .map(({ entry }) => {
        const kept = old.get(entry.name);
        if (kept && entry.fingerprint !== undefined && kept.entry.fingerprint === entry.fingerprint) return kept;
        return newSource(entry, this.log);
      });
    for (const source of previous) if (!this.list.includes(source)) this.retire(source);
  }

  /** Retires every source: idle providers are closed now, busy ones when their last call ends. */
  close(): void {
    const sources = this.list;
    this.list = [];
    for (const source of sources) this.retire(source);
  }

  /** Records what the server said about a source's model (context window, tool support). */
  setSourceInfo(name: string, info: SourceInfo): void {
    const source = this.find(name);
    if (source) source.info = { ...source.info, ...info };
  }

  /** Tried before the priority order until changed; "" restores the priority order. */
  setPreferred(name: string): void {
    if (name && !this.find(name)) throw unknownSource(name, this.names());
    this.preferred = name;
  }

  sources(): SourceStatus[] {
    const now = this.now();
    return this.list.map((s) => sourceStatus(s, now, this.preferred));
  }

  hasSources(): boolean {
    return this.list.length > 0;
  }

  /** Context window (tokens, 0 = unknown) of the source the next request would try first. */
  contextWindow(model = ""): number {
    const { first, lastResort } = this.candidates(model);
    const next = first[0] ?? lastResort[0];
    return next ? windowOf(next) : 0;
  }

  /**
   * Readies the source the next request would try first (its adapter's Lua worker boots in 0.1–0.25 s), so
   * that the first reply after start does not wait for it. A failure is left for that request to report.
   */
  async warm(): Promise<void> {
    const { first, lastResort } = this.candidates("");
    await (first[0] ?? lastResort[0])?.entry.provider.warm?.().catch(() => {});
  }

  /** Makes a disabled or cooling source eligible again (e.g. after its key was fixed). */
  resetSource(name: string): void {
    const source = this.find(name);
    if (source) this.health.markHealthy(source);
  }

  /**
   * One call on `name` alone, outside the fallback order (llm.test): past its cooldown or a 401, in one of
   * its slots, and leaving its state as it was whatever the outcome (its tokens are reported like any
   * call's). Throws llm_unknown_source for a name that is not a source.
   */
  async callSource(
    name: string,
    signal: AbortSignal | undefined,
    call: (provider: Provider) => Promise<CompletionResponse>,
  ): Promise<CompletionResponse> {
    const source = this.find(name);
    if (!source) throw unknownSource(name, this.names());
    const response = await this.withSlot(source, signal, () => call(source.entry.provider));
    return this.answered(source, response);
  }

  chat(req: CompletionRequest, opts: CallOptions = {}): Promise<CompletionResponse> {
    return this.run(req, opts.signal, (source, r) =>
      source.entry.provider.chat({ ...r, stream: false }, { signal: opts.signal }),
    );
  }

  /**
   * Streams from the first source that works; what one attempt does when its stream breaks is in
   * stream-attempt.ts.
   */
  stream(req: CompletionRequest, opts: StreamOptions = {}): Promise<CompletionResponse> {
    const attempts = new StreamAttempts(opts, this.log);
    return this.run(req, opts.signal, (source, r) => attempts.next(source.entry.provider, r), opts.source);
  }

  private async run(
    req: CompletionRequest,
    signal: AbortSignal | undefined,
    call: (source: Source, req: CompletionRequest) => Promise<CompletionResponse>,
    askFirst?: string,
  ): Promise<CompletionResponse> {
    if (this.list.length === 0) throw new NoSourceError();
    const { first, lastResort, skipped } = this.candidates(req.model, askFirst);
    const failures = [...skipped];
    for (const candidate of [...first, ...lastResort]) {
      const attempts = lastResort.includes(candidate) ? 1 : ATTEMPTS_PER_SOURCE;
      let source = candidate;
      for (let attempt = 1; attempt <= attempts; attempt++) {
        if (signal?.aborted) throw abortError();
        if (source.closer.retired) {
          const successor = this.find(source.entry.name);
          if (!successor) break;
          source = successor;
        }
        const sourceReq = this.requestFor(source, req);
        try {
          const response = await this.withSlot(source, signal, () => call(source, sourceReq));
          this.health.markHealthy(source);
          return this.answered(source, response);
        } catch (err) {
          if (isAbort(err, signal)) throw abortError();
          if (err instanceof ProviderError && err.kind === "context_length") throw err;
          const wait = this.health.handleFailure(source, err, attempt < attempts);
          if (wait === undefined) break;
          await sleep(wait, signal);
        }
      }
      failures.push({ source: source.entry.name, reason: source.lastError ?? "failed" });
    }
    throw new AllProvidersFailedError(failures);
  }

  /** The response, marked with its source; the call is reported (a failing listener is only logged). */
  private answered(source: Source, response: CompletionResponse): CompletionResponse {
    const name = source.entry.name;
    try {
      this.onCall?.(name, response.token_usage);
    } catch (err) {
      this.log?.warn(`LLM source ${name}: recording the call's usage failed: ${errorMessage(err)}`);
    }
    return { ...response, source: name };
  }

  /** The sources to try, in order: `askFirst` (one input's choice), the preferred one, then priority. */
  private candidates(model: string, askFirst?: string) {
    if (askFirst && !this.find(askFirst)) throw unknownSource(askFirst, this.names());
    const exact = model !== "" && model !== "AUTO";
    const serving = exact ? this.list.filter((s) => s.entry.provider.model === model) : this.list;
    if (exact && serving.length === 0) {
      const served = this.list.map((s) => `${s.entry.name} (${s.entry.provider.model || "default model"})`);
      throw new HomeAgentError({
        code: "llm_unknown_model",
        message: `no LLM source serves model "${model}"; the sources are: ${served.join(", ")}`,
      });
    }
    const rank = (s: Source) => (s.entry.name === askFirst ? 0 : s.entry.name === this.preferred ? 1 : 2);
    const ordered = [0, 1, 2].flatMap((r) => serving.filter((s) => rank(s) === r));
    const now = this.now();
    const skipped = ordered
      .filter((s) => s.disabled)
      .map((s) => ({ source: s.entry.name, reason: `unavailable after ${s.lastError}` }));
    const first = ordered.filter((s) => !s.disabled && s.cooldownUntil <= now);
    const lastResort = ordered
      .filter((s) => !s.disabled && s.cooldownUntil > now)
      .sort((a, b) => a.cooldownUntil - b.cooldownUntil);
    return { first, lastResort, skipped };
  }

  /** The request as this source should get it: without tools it cannot take, thinking as configured. */
  private requestFor(source: Source, req: CompletionRequest): CompletionRequest {
    let out = req;
    if (source.entry.thinkingEnabled && req.disable_thinking) out = { ...out, disable_thinking: false };
    if (req.tools?.length && supportsTools(source) === false) {
      const { tools: _tools, tool_choice: _choice, ...rest } = out;
      out = rest;
      if (!source.toolsNoticeSent) {
        source.toolsNoticeSent = true;
        const model = source.entry.provider.model;
        const message = `LLM source ${source.entry.name}: model ${model || "(default)"} does not support tools; requests go to it without tools, so it answers from text alone`;
        this.log?.warn(message);
        this.onNotice?.({ kind: "tools_unsupported", source: source.entry.name, model, message });
      }
    }
    return out;
  }

  private async withSlot<T>(source: Source, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
    let release: () => void;
    try {
      release = await source.gate.acquire(signal);
    } catch {
      throw abortError();
    }
    source.closer.begin();
    try {
      return await fn();
    } finally {
      release();
      source.closer.end();
    }
  }

  private retire(source: Source): void {
    source.closer.retire();
  }

  private find(name: string): Source | undefined {
    return this.list.find((s) => s.entry.name === name);
  }

  private names(): string[] {
    return this.list.map((s) => s.entry.name);
  }
}

function unknownSource(name: string, names: string[]): HomeAgentError {
  return new HomeAgentError({
    code: "llm_unknown_source",
    message: `no LLM source named "${name}"; the sources are: ${names.join(", ") || "none"}`,
  });
}

function abortError(): ProviderError {
  return new ProviderError("LLM request aborted", "aborted");
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
