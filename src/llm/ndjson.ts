/**
 * Newline-delimited JSON (Ollama's stream format) → one string per non-blank line. Lines come from
 * lines.ts, which copes with reads that split lines and UTF-8 characters anywhere and fails a line longer
 * than `maxLineBytes` instead of buffering it without end; like it, this gives them in batches, the lines
 * one read completed. The format has no end marker: the adapter's chunks say whether the reply was complete.
 */
import { eachOf, readLineBatches } from "./lines.js";
import type { StreamReadOptions } from "./sse.js";

/** The non-blank lines in batches (never an empty one). */
export async function* ndjsonBatches(
  body: AsyncIterable<Uint8Array>,
  opts: StreamReadOptions = {},
): AsyncGenerator<string[], "eof"> {
  // Leaving the loop early (the consumer stopping, a line too long) closes the line reader and the body.
  for await (const raw of readLineBatches(body, { maxLineBytes: opts.maxLineBytes })) {
    const lines = raw.map((line) => line.trim()).filter((line) => line !== "");
    if (lines.length > 0) yield lines;
  }
  return "eof";
}

/** The lines one at a time. */
export function ndjsonLines(
  body: AsyncIterable<Uint8Array>,
  opts: StreamReadOptions = {},
): AsyncGenerator<string, "eof"> {
  return eachOf(ndjsonBatches(body, opts));
}
