/**
 * The size limit of one streamed reply (`core.llm.max_response_bytes`). The text of a stream — content,
 * reasoning and tool-call arguments — is counted as it arrives, and each tool call costs a fixed overhead
 * besides, so that a flood of tiny calls is cut like a flood of text. The chunk that crosses the limit is
 * cut to what still fits, and the stream ends with a note saying so and finish_reason "length", so the user
 * keeps what came and knows why it stops. The note is marked `cut`, and so is the reply it ends (manager.ts): the
 * tool loop then ends the turn with that text instead of running tool calls that may be cut as well.
 */

import type { StreamChunk } from "../kernel/llm-spec.js";
import { formatBytes } from "../util/bytes.js";

/**
 * What one tool call costs beyond its name and arguments: its object here, the call in the next request
 * and the tool result the loop answers it with — each some 100 bytes, whatever the call's own size.
 */
export const CALL_OVERHEAD_BYTES = 128;

export class ReplyBudget {
  /** True once a chunk did not fit; the stream must end with notice(). */
  cut = false;
  private left: number;
  /** The calls paid for; at most maxBytes / CALL_OVERHEAD_BYTES of them. */
  private readonly calls = new Set<number>();

  constructor(readonly maxBytes: number) {
    this.left = maxBytes;
  }

  /**
   * The chunk, or once the limit is crossed, its reasoning and content up to the limit. Tool-call fragments
   * of the crossing chunk are dropped: a call whose arguments are cut must never look complete.
   */
  take(chunk: StreamChunk): StreamChunk {
    const { size, newCalls } = this.sizeOf(chunk);
    if (size <= this.left) {
      this.left -= size;
      for (const index of newCalls) this.calls.add(index);
      return chunk;
    }
    this.cut = true;
    const reasoning = prefix(chunk.reasoning_content, this.left);
    const content = prefix(chunk.content, this.left - Buffer.byteLength(reasoning));
    this.left = 0;
    return { content, reasoning_content: reasoning, done: false, usage: null, tool_calls: [] };
  }

  notice(): StreamChunk {
    return {
      content: `\n\n[reply cut: larger than ${formatBytes(this.maxBytes)} (core.llm.max_response_bytes)]`,
      reasoning_content: "",
      done: true,
      finish_reason: "length",
      usage: null,
      tool_calls: [],
      cut: true,
    };
  }

  /** The chunk's bytes, plus the overhead of each call it starts (the indexes not paid for yet). */
  private sizeOf(chunk: StreamChunk): { size: number; newCalls: Set<number> } {
    let size = Buffer.byteLength(chunk.content) + Buffer.byteLength(chunk.reasoning_content);
    const newCalls = new Set<number>();
    for (const call of chunk.tool_calls) {
      size += Buffer.byteLength(call.name) + Buffer.byteLength(call.raw_arguments);
      if (this.calls.has(call.stream_index) || newCalls.has(call.stream_index)) continue;
      newCalls.add(call.stream_index);
      size += CALL_OVERHEAD_BYTES;
    }
    return { size, newCalls };
  }
}

/** The longest start of `text` that fits in `maxBytes` of UTF-8, never splitting a character. */
function prefix(text: string, maxBytes: number): string {
  if (maxBytes <= 0) return "";
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(maxBytes));
  return text.slice(0, read);
}
