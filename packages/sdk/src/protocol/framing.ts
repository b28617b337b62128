/**
 * Newline-delimited frames for the plugin protocol. A peer that sends an endless line must not make the
 * other side buffer it: a line over the cap is dropped as it streams past, keeping only its first bytes so
 * the receiver can still answer the request it carried.
 */

/** The longest line either side accepts or sends, without its newline. */
export const MAX_FRAME_BYTES = 1 << 20;

/** How much of a dropped line is kept, to find its `id` and `method`. */
const HEAD_BYTES = 256;
const NEWLINE = 0x0a;

export type LineEvent = { kind: "line"; text: string } | { kind: "oversized"; head: string; bytes: number };

/** Splits a byte stream into lines; call `push` with each chunk, `end` at EOF (a last unterminated line counts). */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of the line being dropped; -1 while the current line is within the cap. */
  private dropped = -1;
  private head = "";

  constructor(
    private readonly onLine: (event: LineEvent) => void,
    private readonly maxBytes = MAX_FRAME_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl === -1) return;
      this.finish();
      start = nl + 1;
    }
  }

  end(): void {
    if (this.size > 0 || this.dropped > 0) this.finish();
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.dropped >= 0) {
      this.dropped += piece.length;
      return;
    }
    if (this.size + piece.length <= this.maxBytes) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    this.head = Buffer.concat([...this.parts, piece])
      .subarray(0, HEAD_BYTES)
      .toString("utf8");
    this.dropped = this.size + piece.length;
    this.parts = [];
    this.size = 0;
  }

  private finish(): void {
    if (this.dropped >= 0) {
      const event: LineEvent = { kind: "oversized", head: this.head, bytes: this.dropped };
      this.dropped = -1;
      this.head = "";
      this.onLine(event);
      return;
    }
    const text = Buffer.concat(this.parts, this.size).toString("utf8");
    this.parts = [];
    this.size = 0;
    if (text.trim() !== "") this.onLine({ kind: "line", text });
  }
}

/** One message as a line, or null when it would exceed `maxBytes` (the caller reports that instead). */
export function encodeFrame(message: unknown, maxBytes = MAX_FRAME_BYTES): string | null {
  const text = JSON.stringify(message);
  // JSON.stringify escapes control characters, so the text holds no newline; only its size can be wrong.
  if (text.length > maxBytes || Buffer.byteLength(text) > maxBytes) return null;
  return `${text}\n`;
}

/**
 * The top-level `id` and whether there is a top-level `method`, read from the first bytes of a dropped line
 * (a JSON object cut anywhere): keys inside `params` or `result` do not count, so a nested `"method"` or
 * `"id"` can never make an oversized answer pass for a request, or fail the wrong call.
 */
export function frameHead(head: string): { id?: number | string; method: boolean } {
  const found: { id?: number | string; method: boolean } = { method: false };
  let depth = 0;
  let i = 0;
  let lastKey: string | undefined;
  let expectKey = false;
  while (i < head.length) {
    const c = head[i];
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end < 0) break;
      const text = jsonString(head.slice(i, end + 1));
      if (text === undefined) break;
      if (depth === 1 && expectKey) lastKey = text;
      else if (depth === 1 && lastKey === "id") found.id = text;
      if (depth === 1 && lastKey === "method" && !expectKey) found.method = true;
      i = end + 1;
      continue;
    }
    if (c === "{" || c === "[") {
      depth++;
      expectKey = c === "{" && depth === 1;
    } else if (c === "}" || c === "]") {
      depth--;
    } else if (c === "," && depth === 1) {
      expectKey = true;
      lastKey = undefined;
    } else if (c === ":" && depth === 1) {
      expectKey = false;
    } else if (depth === 1 && !expectKey && lastKey === "id" && /[0-9]/.test(c ?? "")) {
      const digits = /^\d+/.exec(head.slice(i))?.[0] ?? "";
      // A number cut by the end of the head is not an id we can trust.
      if (i + digits.length < head.length) found.id = Number(digits);
      i += digits.length;
      continue;
    }
    i++;
  }
  return found;
}

/** A JSON string literal's value; undefined for a malformed one (a hostile line may hold anything). */
function jsonString(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/** Index of the quote closing the string that starts at `start`, or -1 when the head ends inside it. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}
