/**
 * Adapter output → the unified TS shapes. Adapters are user-editable Lua, so their JSON is checked and
 * completed here (missing fields get their empty value) instead of trusted.
 */

import type { CompletionResponse, StreamChunk, UnifiedToolCall, UnifiedUsage } from "../kernel/llm-spec.js";
import { HomeAgentError } from "../util/errors.js";
import { isObject } from "../util/object.js";
import { MAX_TOOL_CALLS_PER_REPLY } from "./provider.js";

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function toUsage(v: unknown): UnifiedUsage | null {
  if (!isObject(v)) return null;
  return {
    prompt: num(v.prompt),
    completion: num(v.completion),
    total: num(v.total) || num(v.prompt) + num(v.completion),
    cache_read: num(v.cache_read),
    cache_miss: num(v.cache_miss),
    cache_reported: v.cache_reported === true,
    reasoning_tokens: num(v.reasoning_tokens),
  };
}

function toToolCall(v: unknown): UnifiedToolCall {
  const call = isObject(v) ? v : {};
  const out: UnifiedToolCall = {
    id: str(call.id),
    name: str(call.name),
    arguments: isObject(call.arguments) ? call.arguments : {},
  };
  if (typeof call.raw_arguments === "string") out.raw_arguments = call.raw_arguments;
  return out;
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function notAnObject(): HomeAgentError {
  return new HomeAgentError({ code: "llm_bad_reply", message: "not a JSON object" });
}

/**
 * A whole reply. As in a stream (stream-accumulator.ts), calls without a name are dropped, so they cannot
 * take the place of real ones, and named calls beyond MAX_TOOL_CALLS_PER_REPLY are counted, not read.
 */
export function toResponse(v: unknown): CompletionResponse {
  if (!isObject(v)) throw notAnObject();
  const calls = list(v.tool_calls).filter((call) => isObject(call) && str(call.name) !== "");
  const dropped = calls.length - MAX_TOOL_CALLS_PER_REPLY;
  return {
    content: str(v.content),
    reasoning_content: str(v.reasoning_content),
    finish_reason: str(v.finish_reason),
    token_usage: toUsage(v.token_usage),
    tool_calls: calls.slice(0, MAX_TOOL_CALLS_PER_REPLY).map(toToolCall),
    ...(dropped > 0 ? { dropped_tool_calls: dropped } : {}),
  };
}

/** transform_stream_chunk may answer one chunk or an array of them (one wire event can carry several). */
export function toStreamChunks(v: unknown): StreamChunk[] {
  return Array.isArray(v) ? v.map(toStreamChunk) : [toStreamChunk(v)];
}

export function toStreamChunk(v: unknown): StreamChunk {
  if (!isObject(v)) throw notAnObject();
  const chunk: StreamChunk = {
    content: str(v.content),
    reasoning_content: str(v.reasoning_content),
    done: v.done === true,
    usage: toUsage(v.usage),
    tool_calls: list(v.tool_calls).map((t, i) => {
      const call = isObject(t) ? t : {};
      return {
        id: str(call.id),
        name: str(call.name),
        raw_arguments: str(call.raw_arguments),
        stream_index: typeof call.stream_index === "number" ? call.stream_index : i,
      };
    }),
  };
  if (typeof v.finish_reason === "string" && v.finish_reason) chunk.finish_reason = v.finish_reason;
  return chunk;
}
