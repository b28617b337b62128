/**
 * Turns bus events into SSE frames, once per event whatever the number of clients (the bytes are shared).
 * A frame is bounded: a tool's output can be megabytes, and one frame is held by every client's queue and
 * by the replay ring, so an oversized payload has its long strings cut and is marked `truncated: true`.
 */
import type { AgentEvent } from "@homeagent/sdk";

/** The largest `data:` line of one event. */
export const MAX_FRAME_BYTES = 256 * 1024;
const MAX_DEPTH = 32;
const encoder = new TextEncoder();

/** `id: <seq>`, `event: <type>`, `data: <AgentEvent JSON>`. JSON never holds a raw newline: one data line. */
export function eventFrame(event: AgentEvent): Uint8Array {
  return encoder.encode(`id: ${event.seq}\nevent: ${event.type}\ndata: ${boundedJson(event)}\n\n`);
}

/** A frame without an id (so a client's Last-Event-ID is not moved by it). */
export function noticeFrame(event: string, data: Record<string, unknown>): Uint8Array {
  return encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export function commentFrame(text: string): Uint8Array {
  return encoder.encode(`: ${text}\n\n`);
}

export function retryFrame(ms: number): Uint8Array {
  return encoder.encode(`retry: ${ms}\n\n`);
}

/** The event as JSON within MAX_FRAME_BYTES: long strings are cut shorter until it fits. */
export function boundedJson(event: AgentEvent): string {
  const json = safeJson(event);
  if (Buffer.byteLength(json) <= MAX_FRAME_BYTES) return json;
  for (let maxChars = 32 * 1024; maxChars >= 256; maxChars /= 4) {
    const cut = safeJson({ ...event, payload: { ...cutStrings(event.payload, maxChars, 0), truncated: true } });
    if (Buffer.byteLength(cut) <= MAX_FRAME_BYTES) return cut;
  }
  const { requestId } = event.payload;
  return safeJson({ ...event, payload: { ...(typeof requestId === "string" ? { requestId } : {}), truncated: true } });
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    // A payload that is not JSON (a cycle, a BigInt) still tells the client that something happened.
    const event = value as AgentEvent;
    return JSON.stringify({ ...event, payload: { unserializable: true } });
  }
}

// biome-ignore lint/suspicious/noExplicitAny: payloads are arbitrary JSON
function cutStrings(value: any, maxChars: number, depth: number): any {
  if (typeof value === "string") {
    return value.length <= maxChars ? value : `${value.slice(0, maxChars)}… [${value.length - maxChars} more chars]`;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[nested too deep]";
  if (Array.isArray(value)) {
    const kept = value.slice(0, maxChars / 8).map((v) => cutStrings(v, maxChars, depth + 1));
    return kept.length < value.length ? [...kept, `… [${value.length - kept.length} more items]`] : kept;
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = cutStrings(v, maxChars, depth + 1);
  return out;
}
