/**
 * ProviderManager: ordered fallback over the configured LLM sources (inventory §3.4). Per source up to two
 * attempts with a pause for transient errors (5xx, 429, network); auth errors (401/403) disable the source
 * until it is reset or the sources are set again; anything else moves on to the next source. The caller's
 * abort ends everything at once: no retry, no fallback.
 */
import type { Logger } from "@homeagent/sdk";
import {
  type CallOptions,
  type CompletionRequest,
  type CompletionResponse,
  type Provider,
  ProviderError,
  type StreamChunk,
} from "./provider.js";
import { StreamAccumulator } from "./stream-accumulator.js";

export interface SourceEntry {
  name: string;
  provider: Provider;
  /** Lower runs first; equal priorities keep registration order. */
  priority: number;
}

export interface SourceStatus {
  name: string;
  model: string;
  available: boolean;
  /** Why the last call failed; absent once a call succeeds. */
  lastError?: string;
}

export interface StreamOptions extends CallOptions {
  /** Every chunk as it arrives (content and reasoning deltas for the UI). */
  onChunk?: (chunk: StreamChunk) => void;
}

export interface ProviderManagerOptions {
  /** Pause before the second attempt on a transient error, in ms. Default 2000. */
  retryDelayMs?: number;
  log?: Logger;
}

export class NoSourceError extends Error {
  constructor() {
    super(
      "no LLM source configured: set HOMEAGENT_LLM_BASE_URL (and HOMEAGENT_LLM_API_KEY, HOMEAGENT_LLM_MODEL) " +
        "or core.llm.sources.<name>.base_url / .model / .api_key",
    );
    this.name = "NoSourceError";
  }
}

export class AllProvidersFailedError extends Error {
  constructor(readonly failures: ReadonlyArray<{ source: string; reason: string }>) {
    super(`all ${failures.length} LLM sources failed: ${failures.map((f) => `${f.source}: ${f.reason}`).join("; ")}`);
    this.name = "AllProvidersFailedError";
  }
}

interface Source extends SourceEntry {
  available: boolean;
  lastError?: string;
}

const ATTEMPTS_PER_SOURCE = 2;

export class ProviderManager {
  private list: Source[] = [];
  private readonly retryDelayMs: number;
  private readonly log?: Logger;

  constructor(opts: ProviderManagerOptions = {}) {
    this.retryDelayMs = opts.retryDelayMs ?? 2000;
    this.log = opts.log;
  }

  /** Replaces all sources; every source starts available again. */
  setSources(entries: SourceEntry[]): void {
    this.list = entries
      .map((entry, order) => ({ entry, order }))
      .sort((a, b) => a.entry.priority - b.entry.priority || a.order - b.order)
      .map(({ entry }) => ({ ...entry, available: true }));
  }

  sources(): SourceStatus[] {
    return this.list.map((s) => ({
      name: s.name,
      model: s.provider.model,
      available: s.available,
      ...(s.lastError === undefined ? {} : { lastError: s.lastError }),
    }));
  }

  hasSources(): boolean {
    return this.list.length > 0;
  }

  /** Makes a source disabled by an auth error eligible again (e.g. after its key was fixed). */
  resetSource(name: string): void {
    const source = this.list.find((s) => s.name === name);
    if (source) {
      source.available = true;
      source.lastError = undefined;
    }
  }

  chat(req: CompletionRequest, opts: CallOptions = {}): Promise<CompletionResponse> {
    return this.run(opts.signal, (source) => source.provider.chat({ ...req, stream: false }, { signal: opts.signal }));
  }

  /**
   * Streams from the first source that works. A stream that breaks (not an HTTP error) before any text or
   * tool call arrived is retried as a plain chat on the same source; one that dies after content returns
   * what arrived, with finish_reason "interrupted", rather than asking again and repeating text the user
   * has already seen.
   */
  stream(req: CompletionRequest, opts: StreamOptions = {}): Promise<CompletionResponse> {
    return this.run(opts.signal, (source) => this.streamFrom(source, req, opts));
  }

  private async streamFrom(source: Source, req: CompletionRequest, opts: StreamOptions): Promise<CompletionResponse> {
    const acc = new StreamAccumulator();
    try {
      for await (const chunk of source.provider.chatStream({ ...req, stream: true }, { signal: opts.signal })) {
        acc.add(chunk);
        opts.onChunk?.(chunk);
      }
      return acc.result();
    } catch (err) {
      // An HTTP error answers for the source as a whole; asking again without streaming would only repeat it.
      if (isAbort(err, opts.signal) || (err instanceof ProviderError && err.status !== undefined)) throw err;
      if (acc.hasContent()) {
        this.log?.warn(
          `LLM source ${source.name}: stream broke after content, keeping the partial reply: ${messageOf(err)}`,
        );
        return acc.partial();
      }
      this.log?.warn(`LLM source ${source.name}: stream failed (${messageOf(err)}), trying without streaming`);
      const response = await source.provider.chat({ ...req, stream: false }, { signal: opts.signal });
      // Listeners build the visible reply from chunks; the whole answer arrives as one.
      opts.onChunk?.({
        content: response.content,
        reasoning_content: response.reasoning_content,
        done: true,
        finish_reason: response.finish_reason,
        usage: response.token_usage,
        tool_calls: [],
      });
      return response;
    }
  }

  private async run(
    signal: AbortSignal | undefined,
    call: (source: Source) => Promise<CompletionResponse>,
  ): Promise<CompletionResponse> {
    if (this.list.length === 0) throw new NoSourceError();
    const failures: Array<{ source: string; reason: string }> = [];
    for (const source of this.list) {
      if (!source.available) {
        failures.push({ source: source.name, reason: `disabled after ${source.lastError}` });
        continue;
      }
      for (let attempt = 1; attempt <= ATTEMPTS_PER_SOURCE; attempt++) {
        if (signal?.aborted) throw abortError();
        try {
          const response = await call(source);
          source.available = true;
          source.lastError = undefined;
          return response;
        } catch (err) {
          if (isAbort(err, signal)) throw abortError();
          const kind = err instanceof ProviderError ? err.kind : "fatal";
          source.lastError = messageOf(err);
          this.log?.warn(`LLM source ${source.name} failed (attempt ${attempt}): ${source.lastError}`);
          if (kind === "auth") source.available = false;
          if (kind !== "transient" || attempt === ATTEMPTS_PER_SOURCE) break;
          await sleep(this.retryDelayMs, signal);
        }
      }
      failures.push({ source: source.name, reason: source.lastError ?? "failed" });
    }
    throw new AllProvidersFailedError(failures);
  }
}

function isAbort(err: unknown, signal: AbortSignal | undefined): boolean {
  return Boolean(signal?.aborted) || (err instanceof ProviderError && err.kind === "aborted");
}

function abortError(): ProviderError {
  return new ProviderError("LLM request aborted", "aborted");
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
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
