/**
 * Server-sent events → `data` payloads (WHATWG event-stream rules: LF, CR or CRLF line ends, `:` comments,
 * several `data:` lines joined by "\n", a blank line ends an event). Lines come from lines.ts, which copes
 * with reads that split lines and UTF-8 characters anywhere; a line, and an event, longer than
 * `maxLineBytes` fails the stream (LineTooLongError) instead of being buffered without end.
 *
 * The generator's return value says how the stream ended: "done" at `data: [DONE]`, "eof" when the body
 * simply ended — the caller decides whether that was complete.
 */
import { DEFAULT_MAX_LINE_BYTES, LineTooLongError, readLines } from "./lines.js";

export interface StreamReadOptions {
  maxLineBytes?: number;
}

export async function* sseData(
  body: ReadableStream<Uint8Array>,
  opts: StreamReadOptions = {},
): AsyncGenerator<string, "done" | "eof"> {
  const max = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const lines = readLines(body, { maxLineBytes: max, crEndsLine: true });
  let data: string[] = [];
  let eventBytes = 0;
  // Leaving the loop early (return, throw, the consumer stopping) closes `lines`, which cancels the body.
  for await (const line of lines) {
    if (line === "") {
      if (data.length === 0) continue;
      const payload = data.join("\n");
      data = [];
      eventBytes = 0;
      if (payload.trim() === "[DONE]") return "done";
      yield payload;
    } else if (line.startsWith("data:")) {
      const value = line.slice(line.startsWith("data: ") ? 6 : 5);
      eventBytes += Buffer.byteLength(value) + 1;
      if (eventBytes > max) throw new LineTooLongError(max, "event");
      data.push(value);
    }
    // Comments (":") and the event/id/retry fields carry nothing the adapters read.
  }
  // Lenient about a last event without its blank line: some servers close right after it.
  if (data.length > 0) {
    const payload = data.join("\n");
    if (payload.trim() === "[DONE]") return "done";
    yield payload;
  }
  return "eof";
}
