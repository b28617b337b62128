/**
 * A provider as src/llm/ builds them (inventory §4): one model behind one adapter, speaking the kernel's LLM
 * spec (src/kernel/llm-spec.ts), and the errors a call ends with, classified so the ProviderManager can
 * decide what to try next.
 */
import type { ErrorCode } from "@homeagent/sdk";
import {
  type CompletionRequest,
  type CompletionResponse,
  LLM_CONTEXT_TOO_LONG,
  type StreamChunk,
} from "../kernel/llm-spec.js";
import { HomeAgentError } from "../util/errors.js";

/**
 * The most tool calls one reply is read with; a hostile server can send any number. Above the largest
 * `core.agent.max_tool_calls_per_round`, so that the tool loop, not this bound, decides what runs.
 */
export const MAX_TOOL_CALLS_PER_REPLY = 1024;

export interface CallOptions {
  signal?: AbortSignal;
}

export interface Provider {
  readonly name: string;
  readonly model: string;
  chat(req: CompletionRequest, opts?: CallOptions): Promise<CompletionResponse>;
  chatStream(req: CompletionRequest, opts?: CallOptions): AsyncIterable<StreamChunk>;
  /** Frees what the provider holds (its Lua worker). ProviderManager calls it once, with no call in flight. */
  close?(): unknown;
  /**
   * Readies what the first call would otherwise start with (the adapter's Lua worker and script). Rejects
   * as that call would; the call then fails the same way.
   */
  warm?(): Promise<void>;
}

export type ProviderErrorKind = "auth" | "transient" | "fatal" | "aborted" | "context_length";

export interface ProviderErrorOptions {
  /** The HTTP status, when the server answered with an error. */
  status?: number;
  /** From a 429's `retry-after` header: how long the provider asked us to wait. */
  retryAfterMs?: number;
  /** What went wrong underneath (a network error, a Lua error, a limit), kept for logs and debuggers. */
  cause?: unknown;
  /** A more specific code than `llm_<kind>`, for programs. */
  code?: ErrorCode;
}

/**
 * ProviderError code: the adapter could not even build the request. Asking again (say, without streaming)
 * would run the same transform_request into the same failure, or tie up a hanging script's worker again.
 */
export const ADAPTER_REQUEST_FAILED = "llm_adapter_request_failed";

/** A failed provider call, classified so the ProviderManager can decide: retry, skip, or give up. */
export class ProviderError extends HomeAgentError {
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(
    message: string,
    /** "context_length": the request did not fit the model's window; prune and retry once. */
    readonly kind: ProviderErrorKind,
    opts: ProviderErrorOptions = {},
  ) {
    const code: ErrorCode = kind === "context_length" ? LLM_CONTEXT_TOO_LONG : (opts.code ?? `llm_${kind}`);
    super({ code, message, cause: opts.cause });
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
  }
}

/** Which time limit of a call ran out (see CallWatch). */
export type CallLimit = "first_byte" | "first_content" | "idle" | "call";

/**
 * The server was too slow: no first byte, no content (only keep-alives) by the first-content deadline, no
 * new content mid-reply, or no end within the whole-call deadline.
 * Worth the next source, not another try here (waiting twice would double the delay).
 */
export class ProviderTimeoutError extends ProviderError {
  constructor(
    readonly limit: CallLimit,
    message: string,
  ) {
    super(message, "transient", { code: `llm_${limit}_timeout` });
  }
}

/** Classifies an HTTP status: 401/403 disable the source, 429 and 5xx are worth one more try. */
export function errorKindForStatus(status: number): ProviderError["kind"] {
  if (status === 401 || status === 403) return "auth";
  if (status === 429 || status >= 500) return "transient";
  return "fatal";
}
