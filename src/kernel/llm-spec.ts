/**
 * The kernel's LLM spec: the messages, tool specs, replies, stream parts, usage and error codes the kernel
 * needs from a model, declared here so the kernel depends on no LLM implementation. src/llm/ implements it
 * (adapters map each provider's wire format to and from these shapes, as the Vercel AI SDK's providers
 * implement its model spec). The shapes are the JSON that crosses into and out of Lua adapters, so they keep
 * the snake_case the adapters (and the OpenAI format they follow) use; the kernel turns them into the SDK's
 * camelCase shapes.
 */

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
   * Named tool calls beyond the implementation's bound (1,024 in src/llm/), left out of `tool_calls` unread; the tool loop counts
   * them among the calls it did not run. A stream counts each call once, up to a bound past which this is a
   * lower bound.
   */
  dropped_tool_calls?: number;
  /** The LLM source that answered; set by ProviderManager (a bare provider leaves it out). */
  source?: string;
}

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

/**
 * Error code of a call whose request did not fit the model's context window: the tool loop prunes the
 * request and asks once more. Whatever implements the LLM interface throws an error with this `code`.
 */
export const LLM_CONTEXT_TOO_LONG = "llm_context_too_long";

/** True for an error meaning "the request is longer than the model's window" (see LLM_CONTEXT_TOO_LONG). */
export function isContextTooLong(err: unknown): err is Error & { code: typeof LLM_CONTEXT_TOO_LONG } {
  return err instanceof Error && (err as { code?: unknown }).code === LLM_CONTEXT_TOO_LONG;
}
