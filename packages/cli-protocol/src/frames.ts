/**
 * The cli socket's wire format: UTF-8 text, one line per client message, one JSON object per server line.
 * Shared by the cli plugin (server) and `waiter` (client) so both sides agree on frame shapes and texts.
 */
import type { KernelStatus, TokenUsage } from "@homeagent/sdk";

export const MAX_LINE_BYTES = 1024 * 1024;
export const LINE_TOO_LONG = `line too long (max ${MAX_LINE_BYTES} bytes)`;
export const UNAUTHORIZED = "unauthorized";
/**
 * The daemon's last frame on every connection when it stops: an error frame that answers no request. A
 * client waiting for a reply takes it as that reply; an idle client shows it when the connection closes.
 */
export const SHUTTING_DOWN = "homed is shutting down";

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
