/**
 * One LLM source as ProviderManager keeps it: the entry it was configured with, its call slots, what its
 * server said about the model, and its health — disabled after a 401/403, cooling down after consecutive
 * failures (the steps in DEFAULT_COOLDOWN_STEPS_MS), healthy again after a success or a reset. The manager
 * decides which source a request tries next; this file records how each one has been doing.
 */
import type { LlmSourceStatus, Logger } from "@homeagent/sdk";
import { errorMessage } from "../util/errors.js";
import { IdleClose } from "./idle-close.js";
import { type Provider, ProviderError } from "./provider.js";
import { Semaphore } from "./semaphore.js";
import { isTimeout } from "./stream-attempt.js";

export interface SourceEntry {
  name: string;
  provider: Provider;
  /** Lower runs first; equal priorities keep registration order. */
  priority: number;
  adapter?: string;
  /** Requests in flight at once; excess calls wait. 0 = unlimited. */
  maxConcurrent?: number;
  /** Tokens; 0 or absent = unknown. */
  contextWindow?: number;
  /** false = never send tools to this source; absent = unknown (they are sent). */
  supportsTools?: boolean;
  /** Ask this source's model to think even when the request disables thinking. */
  thinkingEnabled?: boolean;
  /**
   * The configuration the entry was built from. setSources keeps the state (and provider) of a source whose
   * fingerprint did not change, and starts a changed one afresh.
   */
  fingerprint?: string;
}

/** What a server said about its model, learnt after the source was set up. */
export interface SourceInfo {
  contextWindow?: number;
  supportsTools?: boolean;
}

const DEFAULT_COOLDOWN_STEPS_MS = [60_000, 5 * 60_000, 25 * 60_000, 60 * 60_000];

export interface Source {
  entry: SourceEntry;
  gate: Semaphore;
  disabled: boolean;
  /** Consecutive failures; picks the cooldown step. */
  failures: number;
  cooldownUntil: number;
  lastError?: string;
  info: SourceInfo;
  toolsNoticeSent: boolean;
  /** Closes its provider once it is retired (replaced or closed: no new call starts on it) and idle. */
  closer: IdleClose;
}

/** A source starting afresh: healthy, no calls yet, its provider closed once it is retired and idle. */
export function newSource(entry: SourceEntry, log?: Logger): Source {
  return {
    entry,
    gate: new Semaphore(entry.maxConcurrent ?? 0),
    disabled: false,
    failures: 0,
    cooldownUntil: 0,
    info: {},
    toolsNoticeSent: false,
    closer: new IdleClose(
      () => entry.provider.close?.(),
      (why) => log?.warn(`LLM source ${entry.name}: closing its replaced provider failed: ${why}`),
    ),
  };
}

/** The source as `/llm` and the web UI show it. */
export function sourceStatus(s: Source, now: number, preferred: string): LlmSourceStatus {
  const cooling = !s.disabled && s.cooldownUntil > now;
  const tools = supportsTools(s);
  return {
    name: s.entry.name,
    model: s.entry.provider.model,
    adapter: s.entry.adapter ?? "",
    available: !s.disabled && !cooling,
    state: s.disabled ? "unavailable" : cooling ? "cooling_down" : "ready",
    ...(s.lastError === undefined ? {} : { lastError: s.lastError }),
    ...(cooling ? { cooldownUntil: s.cooldownUntil } : {}),
    priority: s.entry.priority,
    preferred: s.entry.name === preferred,
    contextWindow: windowOf(s),
    ...(tools === undefined ? {} : { supportsTools: tools }),
    maxConcurrent: s.entry.maxConcurrent ?? 0,
    inFlight: s.gate.inFlight,
  };
}

export function supportsTools(s: Source): boolean | undefined {
  return s.entry.supportsTools ?? s.info.supportsTools;
}

/** A configured window wins; else what the server reported; 0 = unknown. */
export function windowOf(s: Source): number {
  return s.entry.contextWindow || s.info.contextWindow || 0;
}

export interface SourceHealthOptions {
  /**
   * Pause before the second attempt on a transient error, in ms (default 2000); a function is asked at each
   * retry, so a changed setting applies to the next one.
   */
  retryDelayMs?: number | (() => number);
  /** Longest retry-after honoured by waiting; longer ones move on to the next source. Default 30 s. */
  maxRetryAfterMs?: number;
  /** Cooldown after the 1st, 2nd, … consecutive failure; the last step repeats. */
  cooldownStepsMs?: number[];
  /** Clock for cooldowns (tests inject one). */
  now?: () => number;
  log?: Logger;
}

/** How a source's health changes with the outcome of a call on it. */
export class SourceHealth {
  private readonly retryDelayMs: () => number;
  private readonly maxRetryAfterMs: number;
  private readonly cooldownSteps: number[];
  private readonly now: () => number;
  private readonly log?: Logger;

  constructor(opts: SourceHealthOptions = {}) {
    const delay = opts.retryDelayMs ?? 2000;
    this.retryDelayMs = typeof delay === "number" ? () => delay : delay;
    this.maxRetryAfterMs = opts.maxRetryAfterMs ?? 30_000;
    this.cooldownSteps = opts.cooldownStepsMs ?? DEFAULT_COOLDOWN_STEPS_MS;
    this.now = opts.now ?? Date.now;
    this.log = opts.log;
  }

  /** Updates the source after a failed call; returns how long to wait before retrying it, or undefined to move on. */
  handleFailure(source: Source, err: unknown, canRetry: boolean): number | undefined {
    const kind = err instanceof ProviderError ? err.kind : "fatal";
    const status = err instanceof ProviderError ? err.status : undefined;
    source.lastError = errorMessage(err);
    this.log?.warn(`LLM source ${source.entry.name} failed: ${source.lastError}`);
    if (kind === "auth") {
      source.disabled = true;
      return undefined;
    }
    const retryAfter = err instanceof ProviderError ? err.retryAfterMs : undefined;
    if (retryAfter !== undefined) {
      if (retryAfter <= this.maxRetryAfterMs && canRetry) return retryAfter;
      this.coolDown(source, retryAfter);
      return undefined;
    }
    if (kind === "transient") {
      // Waiting out a timeout twice would double the time before the next source gets a chance.
      if (canRetry && !isTimeout(err)) return this.retryDelayMs();
      this.coolDown(source);
      return undefined;
    }
    // A 4xx says the request was wrong, not the source; a reply the adapter cannot read says the opposite.
    if (status === undefined) this.coolDown(source);
    return undefined;
  }

  markHealthy(source: Source): void {
    source.disabled = false;
    source.failures = 0;
    source.cooldownUntil = 0;
    source.lastError = undefined;
  }

  private coolDown(source: Source, forMs?: number): void {
    source.failures++;
    const step = this.cooldownSteps[Math.min(source.failures, this.cooldownSteps.length) - 1] ?? 0;
    source.cooldownUntil = this.now() + (forMs ?? step);
    this.log?.warn(
      `LLM source ${source.entry.name} cooling down until ${new Date(source.cooldownUntil).toISOString()} ` +
        `(failure ${source.failures} in a row)`,
    );
  }
}
