/**
 * Reading an HTTP body whole, but never more than a limit: `res.text()` / `res.json()` buffer whatever the
 * server sends, so one endless or huge body could take the daemon's memory. The body is streamed and the
 * connection dropped at the limit.
 */
import { formatBytes } from "./bytes.js";
import { HomeAgentError } from "./errors.js";

export class BodyTooLargeError extends HomeAgentError {
  constructor(readonly limitBytes: number) {
    super({ code: "body_too_large", message: `the response body is larger than ${formatBytes(limitBytes)}` });
  }
}

export interface CappedReadOptions {
  /** At the limit, keep the first `maxBytes` and stop instead of throwing (error bodies: the start is enough). */
  truncate?: boolean;
}

/**
 * The body as UTF-8 text, at most `maxBytes` of it. Over the limit it throws BodyTooLargeError, or with
 * `truncate` returns the text up to the limit (a character cut in half is dropped). Either way the rest of
 * the body is cancelled, which closes the connection.
 */
export async function readCappedText(
  body: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
  opts: CappedReadOptions = {},
): Promise<string> {
  if (!body) return "";
  const parts: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early (the limit, an error) ends the body's iteration, which cancels it.
  for await (const value of body) {
    if (size + value.length > maxBytes) {
      if (!opts.truncate) throw new BodyTooLargeError(maxBytes);
      parts.push(value.subarray(0, maxBytes - size));
      return new TextDecoder().decode(Buffer.concat(parts)).replace(/\uFFFD$/, "");
    }
    parts.push(value);
    size += value.length;
  }
  return new TextDecoder().decode(Buffer.concat(parts));
}
