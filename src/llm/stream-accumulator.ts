/**
 * Folds stream chunks into one CompletionResponse. Tool-call fragments are bucketed by the upstream
 * `stream_index` (not by arrival position: providers interleave and repeat fragments); a call begins with
 * its named fragment (adapters send the name first), so fragments at an index that never had a name are
 * dropped, and arguments are parsed only once all fragments are in. At most MAX_TOOL_CALLS_PER_REPLY calls
 * are kept: a hostile stream of sparse or endless indexes must not grow the daemon's memory; calls beyond
 * are only counted (`dropped_tool_calls`), so the model is told. Call ids are kept as the server sent them,
 * empty or repeated ones included: the tool loop gives each call of a round an id of its own.
 */

import type { CompletionResponse, StreamChunk, UnifiedToolCall, UnifiedUsage } from "../kernel/llm-spec.js";
import { isObject } from "../util/object.js";
import { MAX_TOOL_CALLS_PER_REPLY } from "./provider.js";

/** Distinct indexes of dropped calls remembered to count each once (under a megabyte however large they are). */
export const MAX_DROPPED_INDEXES = 16 * MAX_TOOL_CALLS_PER_REPLY;

type ToolCallFragment = StreamChunk["tool_calls"][number];

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

export class StreamAccumulator {
  private content = "";
  private reasoning = "";
  private finishReason = "";
  private usage: UnifiedUsage | null = null;
  private readonly calls = new Map<number, PendingCall>();
  /**
   * The indexes of calls beyond the bound, so that a call whose every fragment repeats its name is counted
   * once; past MAX_DROPPED_INDEXES the count stops growing (a lower bound) to keep memory bounded.
   */
  private readonly dropped = new Set<number>();

  add(chunk: StreamChunk): void {
    this.content += chunk.content;
    this.reasoning += chunk.reasoning_content;
    if (chunk.finish_reason) this.finishReason = chunk.finish_reason;
    if (chunk.usage) this.usage = chunk.usage;
    for (const fragment of chunk.tool_calls) {
      const call = this.callFor(fragment);
      if (!call) continue;
      call.id ||= fragment.id;
      call.args += fragment.raw_arguments;
    }
  }

  /**
   * Whether a reply worth keeping has begun: text that is not only whitespace, or a named tool call. Less
   * (reasoning, blanks, argument bytes of no call) is given up for the next source when the stream breaks.
   */
  hasContent(): boolean {
    return /\S/.test(this.content) || this.calls.size > 0;
  }

  /** The complete reply. Arguments that are not a JSON object become {} with raw_arguments kept. */
  result(): CompletionResponse {
    return this.build(
      this.finishReason,
      this.sortedCalls().map(([, call]) => toolCall(call)),
    );
  }

  /**
   * What survived a stream that died midway, marked finish_reason "interrupted". Only tool calls known to be
   * complete are kept: arguments that parse, or an empty call followed by a later one. A truncated call
   * must never run.
   */
  partial(): CompletionResponse {
    const calls = this.sortedCalls();
    const lastIndex = calls.at(-1)?.[0];
    const complete = calls.filter(([index, call]) =>
      call.args.trim() === "" ? index !== lastIndex : parseObject(call.args) !== undefined,
    );
    return this.build(
      "interrupted",
      complete.map(([, call]) => toolCall(call)),
    );
  }

  /**
   * The call `fragment` belongs to: a new one for a named fragment at a new index while there is room;
   * undefined for a fragment of no call, or of one beyond the bound (then counted).
   */
  private callFor(fragment: ToolCallFragment): PendingCall | undefined {
    const index = fragment.stream_index;
    const known = this.calls.get(index);
    if (known || fragment.name === "") return known;
    if (this.calls.size < MAX_TOOL_CALLS_PER_REPLY) {
      const call = { id: "", name: fragment.name, args: "" };
      this.calls.set(index, call);
      return call;
    }
    if (this.dropped.size < MAX_DROPPED_INDEXES) this.dropped.add(index);
    return undefined;
  }

  private sortedCalls(): Array<[number, PendingCall]> {
    return [...this.calls.entries()].sort(([a], [b]) => a - b);
  }

  private build(finishReason: string, toolCalls: UnifiedToolCall[]): CompletionResponse {
    return {
      content: this.content,
      reasoning_content: this.reasoning,
      finish_reason: finishReason,
      token_usage: this.usage,
      tool_calls: toolCalls,
      ...(this.dropped.size > 0 ? { dropped_tool_calls: this.dropped.size } : {}),
    };
  }
}

function toolCall(call: PendingCall): UnifiedToolCall {
  const out: UnifiedToolCall = { id: call.id, name: call.name, arguments: {} };
  if (call.args.trim() === "") return out;
  const parsed = parseObject(call.args);
  if (parsed) out.arguments = parsed;
  else out.raw_arguments = call.args;
  return out;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
