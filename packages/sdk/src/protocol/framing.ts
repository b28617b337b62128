/**
 * Frames for the plugin protocol: newline-delimited JSON, where a message may carry attachments (its long
 * strings as raw UTF-8 after its line, attachments.ts). A peer that sends an endless line must not make the
 * other side buffer it: a frame over the cap is dropped as it streams past, keeping only the first bytes of
 * its message so the receiver can still answer the request it carried.
 */
import {
  type AttachmentHeader,
  attachmentHeader,
  extractAttachments,
  type IncomingAttachment,
  MAX_HEADER_BYTES,
  parseAttachmentHeader,
} from "./attachments.js";

/** The longest message either side accepts or sends: its line without the newline, plus its attachments. */
export const MAX_FRAME_BYTES = 1 << 20;
/** How much of a dropped message is kept, to find its `id` and `method`. */
const HEAD_BYTES = 256;
const NEWLINE = 0x0a;
/** `@`, the first byte of an attachment header line (a JSON message line starts with `{`). */
const AT = 0x40;

export type FrameEvent =
  | { kind: "line"; text: string; attachments?: IncomingAttachment[] }
  | { kind: "oversized"; head: string; bytes: number };

/** A header line was read: the next line is its message, then `total` bytes of attachments. */
interface Announced {
  header: AttachmentHeader[];
  total: number;
}

/** The attachment bytes being read (kept) or skipped (the frame is over the cap). */
interface RawBytes {
  header: AttachmentHeader[];
  text: string;
  parts: Buffer[];
  left: number;
  keep: boolean;
}

/**
 * Splits a byte stream into messages; call `push` with each chunk, `end` at EOF (a last unterminated line
 * counts, an unfinished attachment frame does not).
 */
export class FrameReader {
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of the line being dropped; -1 while the current line is within the cap. */
  private dropped = -1;
  private head = "";
  private announced: Announced | undefined;
  private raw: RawBytes | undefined;

  constructor(
    private readonly onFrame: (event: FrameEvent) => void,
    private readonly maxBytes = MAX_FRAME_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      if (this.raw) {
        start = this.takeRaw(this.raw, chunk, start);
        continue;
      }
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl === -1) return;
      this.finish();
      start = nl + 1;
    }
  }

  end(): void {
    if (this.raw || this.announced) return;
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
    const announced = this.announced;
    this.announced = undefined;
    if (this.dropped >= 0) {
      const bytes = this.dropped + (announced?.total ?? 0);
      const event: FrameEvent = { kind: "oversized", head: this.head, bytes };
      this.dropped = -1;
      this.head = "";
      if (announced) this.skip(announced);
      this.onFrame(event);
      return;
    }
    const size = this.size;
    const first = this.parts[0];
    const headerLine = !announced && first !== undefined && first[0] === AT && size <= MAX_HEADER_BYTES;
    const text =
      this.parts.length === 1 && first ? first.toString("utf8") : Buffer.concat(this.parts, size).toString("utf8");
    this.parts = [];
    this.size = 0;
    if (announced) {
      this.message(announced, text, size);
      return;
    }
    const header = headerLine ? parseAttachmentHeader(text.slice(1)) : undefined;
    if (header) this.announced = { header, total: header.reduce((sum, a) => sum + a.bytes, 0) };
    else if (text.trim() !== "") this.onFrame({ kind: "line", text });
  }

  /** The message line of an attachment frame: its attachments follow, unless the whole is over the cap. */
  private message(announced: Announced, text: string, size: number): void {
    if (size + announced.total > this.maxBytes) {
      this.skip(announced);
      this.onFrame({ kind: "oversized", head: text.slice(0, HEAD_BYTES), bytes: size + announced.total });
      return;
    }
    this.raw = { header: announced.header, text, parts: [], left: announced.total, keep: true };
    if (announced.total === 0) this.deliver(this.raw);
  }

  private skip(announced: Announced): void {
    if (announced.total > 0)
      this.raw = { header: announced.header, text: "", parts: [], left: announced.total, keep: false };
  }

  /** Takes attachment bytes from `chunk` at `start`; returns where the rest of the chunk begins. */
  private takeRaw(raw: RawBytes, chunk: Buffer, start: number): number {
    const end = Math.min(chunk.length, start + raw.left);
    if (raw.keep) raw.parts.push(chunk.subarray(start, end));
    raw.left -= end - start;
    if (raw.left === 0) {
      if (raw.keep) this.deliver(raw);
      else this.raw = undefined;
    }
    return end;
  }

  private deliver(raw: RawBytes): void {
    this.raw = undefined;
    const all = raw.parts.length === 1 && raw.parts[0] ? raw.parts[0] : Buffer.concat(raw.parts);
    let offset = 0;
    const attachments = raw.header.map(({ path, bytes }) => {
      const text = all.toString("utf8", offset, offset + bytes);
      offset += bytes;
      return { path, text };
    });
    this.onFrame({ kind: "line", text: raw.text, attachments });
  }
}

/** One message ready to write: its line (after an attachment header line, if it has attachments), then their text. */
export interface Frame {
  text: string;
  attachments: string[];
}

/**
 * One message as a frame, or null when it would exceed `maxBytes` (the caller reports that instead). With
 * `attachments` (the other side reads them), its long strings become attachments.
 */
export function encodeFrame(
  message: Record<string, unknown>,
  maxBytes = MAX_FRAME_BYTES,
  attachments = false,
): Frame | null {
  const extracted = attachments ? extractAttachments(message) : null;
  if (extracted) {
    const header = attachmentHeader(extracted.attachments);
    const line = JSON.stringify(extracted.message);
    const bytes = extracted.attachments.reduce((sum, a) => sum + a.bytes, Buffer.byteLength(line));
    if (bytes > maxBytes) return null;
    if (1 + Buffer.byteLength(header) <= MAX_HEADER_BYTES) {
      return { text: `@${header}\n${line}\n`, attachments: extracted.attachments.map((a) => a.text) };
    }
  }
  const text = JSON.stringify(message);
  // JSON.stringify escapes control characters, so the text holds no newline; only its size can be wrong.
  if (text.length > maxBytes || Buffer.byteLength(text) > maxBytes) return null;
  return { text: `${text}\n`, attachments: [] };
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
