/**
 * The cli socket's wire format: UTF-8 text, one line per client message, one JSON object per server line.
 * Shared by the cli plugin (server) and `waiter` (client) so both sides agree on framing and frame shapes.
 */
import type { KernelStatus, TokenUsage } from "@homeagent/sdk";

export const MAX_LINE_BYTES = 1024 * 1024;
export const LINE_TOO_LONG = `line too long (max ${MAX_LINE_BYTES} bytes)`;
export const UNAUTHORIZED = "unauthorized";

export interface SettingFrameEntry {
  key: string;
  value: string;
  type: string;
  description: string;
}

/** Frames that answer one client line; exactly one of them ends each answer. */
export type FinalFrame =
  | {
      type: "response";
      content: string;
      reasoning_content?: string;
      usage?: TokenUsage;
      status?: KernelStatus;
    }
  | { type: "error"; error: string }
  | { type: "tools"; tools: string[] }
  | { type: "settings"; settings: SettingFrameEntry[] };

/** Frames streamed while a message is being processed, before its final frame. */
export type ProgressFrame =
  | { type: "content_delta"; content: string; reset?: true }
  | { type: "reasoning_delta"; content: string }
  | { type: "tool_call"; tool: string; status: string; result?: string }
  | { type: "reasoning"; content: string };

export type ServerFrame = FinalFrame | ProgressFrame;

const FINAL_TYPES: ReadonlySet<string> = new Set(["response", "error", "tools", "settings"]);

export function isFinalFrame(frame: ServerFrame): frame is FinalFrame {
  return FINAL_TYPES.has(frame.type);
}

export function encodeFrame(frame: ServerFrame): string {
  return `${JSON.stringify(frame)}\n`;
}

/**
 * Splits a byte stream into lines. It works on bytes rather than decoded strings so that a multi-byte
 * character split across chunks stays intact and the cap counts bytes, as the error message promises.
 * A line over the cap is reported once and then skipped up to its newline, so one bad line never costs
 * the connection.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) {
        this.keep(chunk.subarray(start));
        return;
      }
      this.finish(chunk.subarray(start, newline));
      start = newline + 1;
    }
  }

  private keep(part: Buffer): void {
    if (part.length === 0 || this.discarding) return;
    this.pending.push(part);
    this.pendingBytes += part.length;
    // One byte of slack for the '\r' of a CRLF line that sits exactly at the cap.
    if (this.pendingBytes > this.maxBytes + 1) {
      this.clear();
      this.discarding = true;
      this.onOversize();
    }
  }

  private finish(part: Buffer): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    let line = this.pendingBytes === 0 ? part : Buffer.concat([...this.pending, part]);
    this.clear();
    if (line.at(-1) === 0x0d) line = line.subarray(0, -1);
    if (line.length > this.maxBytes) this.onOversize();
    else this.onLine(line.toString("utf8"));
  }

  private clear(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }
}
