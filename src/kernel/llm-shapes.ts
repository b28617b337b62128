/**
 * The LLM layer speaks the unified wire shapes (snake_case, shared with Lua adapters); plugins and the
 * rest of the kernel see the SDK's camelCase shapes. This is the one place the two meet.
 */
import type { TokenUsage, ToolCall } from "@homeagent/sdk";
import type { UnifiedToolCall, UnifiedUsage, WireToolCall } from "./llm-spec.js";

export function toTokenUsage(u: UnifiedUsage | null): TokenUsage | null {
  if (!u) return null;
  return {
    prompt: u.prompt,
    completion: u.completion,
    total: u.total,
    cacheRead: u.cache_read,
    cacheMiss: u.cache_miss,
    cacheReported: u.cache_reported,
    reasoningTokens: u.reasoning_tokens,
  };
}

export function toToolCall(call: UnifiedToolCall): ToolCall {
  const out: ToolCall = { id: call.id, name: call.name, arguments: call.arguments };
  if (call.raw_arguments !== undefined) out.rawArguments = call.raw_arguments;
  return out;
}

export function toWireToolCall(call: ToolCall): WireToolCall {
  return {
    id: call.id,
    type: "function",
    // Invalid JSON from the model is not echoed back: some providers reject the whole request for it.
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  };
}

/** The usage of a whole turn: every LLM round added up; cache figures count only if every round had them. */
export function addUsage(acc: TokenUsage | null, u: TokenUsage | null): TokenUsage | null {
  if (!u) return acc;
  if (!acc) return { ...u };
  return {
    prompt: acc.prompt + u.prompt,
    completion: acc.completion + u.completion,
    total: acc.total + u.total,
    cacheRead: acc.cacheRead + u.cacheRead,
    cacheMiss: acc.cacheMiss + u.cacheMiss,
    cacheReported: acc.cacheReported && u.cacheReported,
    reasoningTokens: acc.reasoningTokens + u.reasoningTokens,
  };
}
