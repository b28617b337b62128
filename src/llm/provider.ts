/**
 * The unified LLM shapes (inventory §4): every adapter maps its provider's wire format to and from these.
 * They are the JSON that crosses into and out of Lua adapters, so they keep the snake_case the adapters
 * (and the OpenAI format they follow) use; the kernel turns them into the SDK's camelCase shapes.
 */
import { HomeAgentError } from "../util/errors.js";

export interface UnifiedUsage {
  prompt: number;
  completion: number;
  total: number;
  cache_read: number;
  cache_miss: number;
  /** false = the provider said nothing about caching ("unknown"), true = the cache figures are real. */
  cache_reported: boolean;
  reasoning_tokens: number;
}

export interface UnifiedToolCall {
  /** As the server sent it: possibly empty, or shared with another call of the reply (tool-cap.ts fixes both). */
  id: string;
  name: string;
  /** Parsed arguments; when the model sent invalid JSON this is `{}` and `raw_arguments` keeps the text. */
  arguments: Record<string, unknown>;
  raw_arguments?: string;
}

export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  reasoning_content?: string;
  tool_call_id?: string;
  name?: string;
  tool_calls?: WireToolCall[];
}

export interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface CompletionRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  max_tokens?: number;
  stream?: boolean;
  tools?: ToolSpec[];
  tool_choice?: "auto" | "none";
  disable_thinking?: boolean;
  extra_body?: Record<string, unknown>;
}

export interface CompletionResponse {
  content: string;
  reasoning_content: string;
  finish_reason: string;
  token_usage: UnifiedUsage | null;
  tool_calls: UnifiedToolCall[];
  /**
   * The reply was cut at `core.llm.max_response_bytes`: its content ends with a note saying so, and its tool
   * calls may be cut too, so none of them is to run.
   */
  cut?: true;
  /**
   * Named tool calls beyond MAX_TOOL_CALLS_PER_REPLY, left out of `tool_calls` unread; the tool loop counts
   * them among the calls it did not run. A stream counts each call once, up to a bound past which this is a
   * lower bound.
   */
  dropped_tool_calls?: number;
  /** The LLM source that answered; set by ProviderManager (a bare provider leaves it out). */
  source?: string;
}

/**
 * The most tool calls one reply is read with; a hostile server can send any number. Above the largest
 * `core.agent.max_tool_calls_per_round`, so that the tool loop, not this bound, decides what runs.
 */
export const MAX_TOOL_CALLS_PER_REPLY = 1024;

/** One streamed piece; tool-call fragments carry the upstream `stream_index` they belong to. */
export interface StreamChunk {
  content: string;
  reasoning_content: string;
  done: boolean;
  finish_reason?: string;
  usage: UnifiedUsage | null;
  tool_calls: Array<{ id: string; name: string; raw_arguments: string; stream_index: number }>;
  /** The note that ends a reply cut at its size limit (reply-budget.ts). */
  cut?: true;
}

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
  code?: string;
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
    super({ code: opts.code ?? `llm_${kind}`, message, cause: opts.cause });
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

export function emptyUsage(): UnifiedUsage {
  return {
    prompt: 0,
    completion: 0,
    total: 0,
    cache_read: 0,
    cache_miss: 0,
    cache_reported: false,
    reasoning_tokens: 0,
  };
}

/** Classifies an HTTP status: 401/403 disable the source, 429 and 5xx are worth one more try. */
export function errorKindForStatus(status: number): ProviderError["kind"] {
  if (status === 401 || status === 403) return "auth";
  if (status === 429 || status >= 500) return "transient";
  return "fatal";
}
