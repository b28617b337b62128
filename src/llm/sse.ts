/**
 * Server-sent events → `data` payloads (WHATWG event-stream rules: LF, CR or CRLF line ends, `:` comments,
 * several `data:` lines joined by "\n", a blank line ends an event). Lines come from lines.ts, which copes
 * with reads that split lines and UTF-8 characters anywhere; a line, and an event, longer than
 * `maxLineBytes` fails the stream (LineTooLongError) instead of being buffered without end.
 *
 * Payloads come in batches, those completed by one read of the body (see lines.ts for why).
 *
 * The generator's return value says how the stream ended: "done" at `data: [DONE]`, "eof" when the body
 * simply ended — the caller decides whether that was complete.
 */
import { DEFAULT_MAX_LINE_BYTES, eachOf, LineTooLongError, readLineBatches } from "./lines.js";

export interface StreamReadOptions {
  maxLineBytes?: number;
}

/** The payloads in batches (never an empty one); those before [DONE] or an over-long event still come. */
export async function* sseBatches(
  body: AsyncIterable<Uint8Array>,
  opts: StreamReadOptions = {},
): AsyncGenerator<string[], "done" | "eof"> {
  const max = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let data: string[] = [];
  let eventBytes = 0;
  // Leaving the loop early (return, throw, the consumer stopping) closes the line reader, which cancels the body.
  for await (const lines of readLineBatches(body, { maxLineBytes: max, crEndsLine: true })) {
    const payloads: string[] = [];
    for (const line of lines) {
      if (line === "") {
        if (data.length === 0) continue;
        const payload = data.join("\n");
        data = [];
        eventBytes = 0;
        if (payload.trim() === "[DONE]") {
          if (payloads.length > 0) yield payloads;
          return "done";
        }
        payloads.push(payload);
      } else if (line.startsWith("data:")) {
        const value = line.slice(line.startsWith("data: ") ? 6 : 5);
        eventBytes += Buffer.byteLength(value) + 1;
        if (eventBytes > max) {
          if (payloads.length > 0) yield payloads;
          throw new LineTooLongError(max, "event");
        }
        data.push(value);
      }
      // Comments (":") and the event/id/retry fields carry nothing the adapters read.
    }
    if (payloads.length > 0) yield payloads;
  }
  // Lenient about a last event without its blank line: some servers close right after it.
  if (data.length > 0) {
    const payload = data.join("\n");
    if (payload.trim() === "[DONE]") return "done";
    yield [payload];
  }
  return "eof";
}

/** The payloads one at a time. */
export function sseData(
  body: AsyncIterable<Uint8Array>,
  opts: StreamReadOptions = {},
): AsyncGenerator<string, "done" | "eof"> {
  return eachOf(sseBatches(body, opts));
}
