/** What the daemon reports about itself: status, the last request's context, embedding tier, LLM sources. */

import type { PluginInfo } from "./plugins.js";

export interface KernelStatus {
  version: string;
  uptimeS: number;
  busy: boolean;
  queued: number;
  processed: number;
  tools: number;
  outputChannels: string[];
  llm: { sources: Array<{ name: string; model: string; available: boolean; lastError?: string }> };
  plugins: PluginInfo[];
  embedding: EmbeddingStatusInfo;
  /** The event bus: events published since start (the last `seq`) and handlers subscribed now. */
  events: { published: number; subscribers: number };
  /** Settings whose stored value is invalid: the default is in effect for each, and `message` says why. */
  configProblems: Array<{ key: string; message: string }>;
  /** Today's turns and tokens per LLM source, hour by hour. */
  usage: LlmUsageToday;
}

/**
 * Today's LLM use per source, in the daemon's time zone (`core.agent.timezone`, else the system's); the
 * figures survive a restart and start from zero at local midnight. Tokens are as reported by the provider:
 * the daemon does not count them itself, and a provider that reports none adds 0 (see `callsWithoutUsage`).
 */
export interface LlmUsageToday {
  /** The local date, YYYY-MM-DD. */
  day: string;
  /** The IANA zone `day` and the hours are in. */
  timeZone: string;
  /** The local hour now, 0–23: the hours after it have not happened yet. */
  hour: number;
  /**
   * Sources used today in natural order of their names (src2 before src10), "(other)" last: it adds up the
   * sources beyond the first 16 of the day.
   */
  sources: LlmSourceUsage[];
}

/** One LLM source's use today. */
export interface LlmSourceUsage {
  name: string;
  /**
   * Turns whose final LLM reply came from this source: user inputs, self-tasks, and OpenAI-endpoint
   * requests alike. A turn that failed does not count; the tokens its calls used do.
   */
  turns: number;
  /** Successful LLM calls (a turn that uses tools makes several). */
  calls: number;
  /** Calls whose provider reported no token usage: they add 0 tokens. */
  callsWithoutUsage: number;
  /** As reported by the provider. */
  promptTokens: number;
  /** As reported by the provider. */
  completionTokens: number;
  /** The hours with any use, in order. */
  byHour: Array<{ hour: number; turns: number; promptTokens: number; completionTokens: number }>;
}

/**
 * What the last LLM request of a turn held, section by section (`/context`). Tokens are the daemon's
 * estimate (about one per CJK character, one per four Latin characters).
 */
export interface ContextReport {
  requestId: string;
  /** Unix milliseconds. */
  at: number;
  /** Tokens of the source's context window (the default when the source does not say). */
  contextWindow: number;
  /** Tokens the request may use (80 % of the window). */
  budget: number;
  /**
   * persona, output_rules, tools, memory_index, related_memory, timeline, plugin_context, then input:
   * tokens used and the share of the budget each was given.
   */
  sections: Array<{ name: string; tokens: number; budget: number }>;
  toolsOffered: number;
  toolsTotal: number;
}

/**
 * What the daemon would send the model if `query` arrived now as a user message: the request's messages
 * section by section, with their tokens. Nothing is run and nothing is recorded.
 */
export interface ContextPreview {
  query: string;
  contextWindow: number;
  budget: number;
  sections: Array<{ name: string; tokens: number; budget: number; text: string }>;
}

/** The embedding tier in use, and every tier above it that is not, with the reason. */
export interface EmbeddingStatusInfo {
  active: string;
  fingerprint: string;
  dimension: number;
  degraded: Array<{ tier: string; reason: string }>;
}

/** One LLM source as the daemon sees it (`/llm`, the llm_list_sources tool, the status page). */
export interface LlmSourceStatus {
  name: string;
  model: string;
  adapter: string;
  /** Whether the next request may go to it: not disabled by a 401/403 and not cooling down. */
  available: boolean;
  /**
   * "cooling_down": failed repeatedly; skipped until `cooldownUntil` unless every other source fails too.
   * "unavailable": rejected its credentials (401/403); skipped until its configuration changes.
   */
  state: "ready" | "cooling_down" | "unavailable";
  lastError?: string;
  /** Unix milliseconds. */
  cooldownUntil?: number;
  priority: number;
  /** Chosen with `/llm use <name>` (or llm_set_source): tried before the priority order. */
  preferred: boolean;
  /** Tokens; 0 = unknown (configured, or read from the server). */
  contextWindow: number;
  /** false = the model cannot take tools, so none are sent; absent = unknown. */
  supportsTools?: boolean;
  maxConcurrent: number;
  inFlight: number;
}

/** The daemon's LLM sources. */
export interface LlmAPI {
  /** Capability `kernel_status`: the same facts `kernel.status()` reports, in full. */
  sources(): LlmSourceStatus[];
  /**
   * Capability `llm_admin`. Makes `name` the preferred source until changed (persisted as
   * core.llm.provider); "" = priority order.
   */
  use(name: string): void;
  /**
   * Capability `llm_admin`. Sends one tiny request ("Reply with OK.") to this source alone, past its
   * cooldown, within `timeoutMs` (default 20 s, at most 60 s); never throws for a failing source.
   */
  test(name: string, opts?: { timeoutMs?: number }): Promise<LlmTestResult>;
}

export interface LlmTestResult {
  source: string;
  ok: boolean;
  latencyMs: number;
  model: string;
  /** The start of the reply, when ok. */
  reply?: string;
  /** Why it failed, when not ok (secrets masked). */
  error?: string;
}
