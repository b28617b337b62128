/**
 * The line reader under sse.ts and ndjson.ts. It splits the raw bytes (CR and LF never occur inside a UTF-8
 * multi-byte character, so a line can be decoded on its own once it is complete) and refuses a line longer
 * than a limit: a server that sends an endless body without a line end must not make the daemon buffer it
 * forever. Lines come in batches, the ones each read completed, so that what a fast server sent at once
 * can be handed to the adapter in one round trip to its Lua worker.
 */
import { formatBytes } from "../util/bytes.js";
import { HomeAgentError } from "../util/errors.js";

/** Longest line (or SSE event) accepted by default; a real stream event is a few KiB at most. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

export class LineTooLongError extends HomeAgentError {
  constructor(
    readonly limitBytes: number,
    what = "line",
  ) {
    super({
      code: "stream_line_too_long",
      message:
        `a stream ${what} is longer than ${formatBytes(limitBytes)}: the server is not sending a usable stream ` +
        "(check the source's base_url and the adapter's stream_format)",
    });
  }
}

export interface LineOptions {
  maxLineBytes?: number;
  /** A lone CR ends a line too (event streams); otherwise only LF does (NDJSON), and a CR before it is kept. */
  crEndsLine?: boolean;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Every line of the body, without its line end, in batches: the lines each read of the body completed (never
 * an empty batch); a last line without an end is kept. Stopping early (or an over-long line) cancels the
 * body; the lines before an over-long one still come first.
 */
export async function* readLineBatches(
  body: AsyncIterable<Uint8Array>,
  opts: LineOptions = {},
): AsyncGenerator<string[]> {
  const max = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const decoder = new TextDecoder();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  // The previous read ended in CR: an LF starting this one is the second half of a CRLF.
  let afterCR = false;
  const take = (tail: Uint8Array): string => {
    if (pendingBytes + tail.length > max) throw new LineTooLongError(max);
    const line = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
    pending = [];
    pendingBytes = 0;
    return decoder.decode(line);
  };
  /** The lines `value` completes, into `batch`; what is left of it waits for the next read. */
  const split = (value: Uint8Array, batch: string[]): void => {
    let start = afterCR && value[0] === LF ? 1 : 0;
    afterCR = false;
    for (let i = start; i < value.length; i++) {
      const byte = value[i];
      if (byte !== LF && !(byte === CR && opts.crEndsLine)) continue;
      batch.push(take(value.subarray(start, i)));
      if (byte === CR && value[i + 1] === LF) i++;
      else if (byte === CR && i + 1 === value.length) afterCR = true;
      start = i + 1;
    }
    if (start < value.length) {
      pendingBytes += value.length - start;
      if (pendingBytes > max) throw new LineTooLongError(max);
      pending.push(value.slice(start));
    }
  };
  // Leaving the loop (the consumer stopping, a line too long) ends the body's iteration, which cancels it.
  for await (const value of body) {
    const batch: string[] = [];
    try {
      split(value, batch);
    } catch (err) {
      if (batch.length > 0) yield batch;
      throw err;
    }
    if (batch.length > 0) yield batch;
  }
  if (pendingBytes > 0) yield [take(new Uint8Array())];
}

/** One item at a time from a generator of batches, ending with its return value; stopping early stops it. */
export async function* eachOf<T, R>(batches: AsyncGenerator<T[], R>): AsyncGenerator<T, R> {
  try {
    for (;;) {
      const next = await batches.next();
      if (next.done) return next.value;
      yield* next.value;
    }
  } finally {
    await batches.return(undefined as R);
  }
}
