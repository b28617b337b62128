/**
 * Folds stream chunks into one CompletionResponse. Tool-call fragments are bucketed by the upstream
 * `stream_index` (not by arrival position: providers interleave and repeat fragments), calls without a
 * name are dropped, and arguments are parsed only once all fragments are in. At most
 * MAX_TOOL_CALLS_PER_REPLY indexes are kept: a hostile stream of sparse or endless indexes must not grow
 * the daemon's memory; calls beyond are only counted (`dropped_tool_calls`), so the model is told.
 */
import { isObject } from "../util/object.js";
import {
  type CompletionResponse,
  MAX_TOOL_CALLS_PER_REPLY,
  type StreamChunk,
  type UnifiedToolCall,
  type UnifiedUsage,
} from "./provider.js";

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
  /** Named fragments at indexes beyond the bound: each one starts a call that is not kept. */
  private dropped = 0;

  add(chunk: StreamChunk): void {
    this.content += chunk.content;
    this.reasoning += chunk.reasoning_content;
    if (chunk.finish_reason) this.finishReason = chunk.finish_reason;
    if (chunk.usage) this.usage = chunk.usage;
    for (const fragment of chunk.tool_calls) {
      const call = this.callAt(fragment.stream_index);
      if (!call) {
        if (fragment.name !== "") this.dropped++;
        continue;
      }
      call.id ||= fragment.id;
      call.name ||= fragment.name;
      call.args += fragment.raw_arguments;
    }
  }

  /** Whether anything a reply is made of (text or a tool call) has arrived; reasoning alone does not count. */
  hasContent(): boolean {
    return this.content.length > 0 || this.calls.size > 0;
  }

  /** The complete reply. Arguments that are not a JSON object become {} with raw_arguments kept. */
  result(): CompletionResponse {
    return this.build(
      this.finishReason,
      this.namedCalls().map(([index, call]) => toolCall(index, call)),
    );
  }

  /**
   * What survived a stream that died midway, marked finish_reason "interrupted". Only tool calls known to be
   * complete are kept: arguments that parse, or an empty call followed by a later one. A truncated call
   * must never run.
   */
  partial(): CompletionResponse {
    const named = this.namedCalls();
    let lastIndex = Number.NEGATIVE_INFINITY;
    for (const index of this.calls.keys()) if (index > lastIndex) lastIndex = index;
    const complete = named.filter(([index, call]) =>
      call.args.trim() === "" ? index < lastIndex : parseObject(call.args) !== undefined,
    );
    return this.build(
      "interrupted",
      complete.map(([index, call]) => toolCall(index, call)),
    );
  }

  /** The call at `index`, a new one while there is room; undefined once the bound is reached. */
  private callAt(index: number): PendingCall | undefined {
    let call = this.calls.get(index);
    if (!call && this.calls.size < MAX_TOOL_CALLS_PER_REPLY) {
      call = { id: "", name: "", args: "" };
      this.calls.set(index, call);
    }
    return call;
  }

  private namedCalls(): Array<[number, PendingCall]> {
    return [...this.calls.entries()].filter(([, call]) => call.name !== "").sort(([a], [b]) => a - b);
  }

  private build(finishReason: string, toolCalls: UnifiedToolCall[]): CompletionResponse {
    return {
      content: this.content,
      reasoning_content: this.reasoning,
      finish_reason: finishReason,
      token_usage: this.usage,
      tool_calls: toolCalls,
      ...(this.dropped > 0 ? { dropped_tool_calls: this.dropped } : {}),
    };
  }
}

// Some local servers send no call id; the tool result still needs one to refer to.
function toolCall(index: number, call: PendingCall): UnifiedToolCall {
  const out: UnifiedToolCall = { id: call.id || `call_${index}`, name: call.name, arguments: {} };
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
