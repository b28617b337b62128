/**
 * Newline-delimited JSON (Ollama's stream format) → one string per non-blank line. Lines come from
 * lines.ts, which copes with reads that split lines and UTF-8 characters anywhere and fails a line longer
 * than `maxLineBytes` instead of buffering it without end. The format has no end marker: the adapter's
 * chunks say whether the reply was complete.
 */
import { readLines } from "./lines.js";
import type { StreamReadOptions } from "./sse.js";

export async function* ndjsonLines(
  body: ReadableStream<Uint8Array>,
  opts: StreamReadOptions = {},
): AsyncGenerator<string, "eof"> {
  // Leaving the loop early (the consumer stopping, a line too long) closes the line reader and the body.
  for await (const raw of readLines(body, { maxLineBytes: opts.maxLineBytes })) {
    const line = raw.trim();
    if (line) yield line;
  }
  return "eof";
}
