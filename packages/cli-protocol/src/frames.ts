/**
 * The cli socket's wire format: UTF-8 text, one line per client message, one JSON object per server line.
 * Shared by the cli plugin (server) and `waiter` (client) so both sides agree on frame shapes and texts.
 */
import type { KernelStatus, TokenUsage } from "@homeagent/sdk";
import type { McpToolDef, McpToolResult } from "./mcp-tools.js";

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

/**
 * Frames that answer one client line; exactly one of them ends each answer. `mcp_tools` answers `/mcp tools`
 * (the MCP tools offered now, with their JSON Schemas) and `mcp_result` answers `/mcp call <json>` (the
 * tool's text; `isError` for a tool that is off, bad arguments or a failed call): the lines of `waiter mcp`
 * (mcp-lines.ts). A malformed `/mcp` line is answered by `error`.
 */
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
  | { type: "settings"; settings: SettingFrameEntry[] }
  | { type: "mcp_tools"; tools: McpToolDef[] }
  | { type: "mcp_result"; result: McpToolResult };

/** Frames streamed while a message is being processed, before its final frame. */
export type ProgressFrame =
  | { type: "content_delta"; content: string; reset?: true }
  | { type: "reasoning_delta"; content: string }
  | { type: "tool_call"; tool: string; status: string; result?: string }
  | { type: "reasoning"; content: string };

/**
 * Frames that answer no line: sent to a connection that declared itself interactive (`/interactive`), at any
 * time, also while one of its lines is being answered. `notice`: a message for the cli channel that is not
 * the reply to this client's line (a reminder, a background result, a message kept in the inbox). `approval`:
 * a tool asks the user; the client answers with the line `/approve <id> once|always|deny`, which is handled at
 * once (out of turn) and answered by `approval_closed`, or by a `notice` of kind "error".
 */
export type PushFrame =
  | { type: "notice"; kind: string; text: string; at: number }
  | { type: "approval"; id: string; plugin: string; question: string; options: string[]; expires_at: number }
  | { type: "approval_closed"; id: string; outcome: string; by?: string };

export type ServerFrame = FinalFrame | ProgressFrame | PushFrame;

const FINAL_TYPES: ReadonlySet<string> = new Set(["response", "error", "tools", "settings", "mcp_tools", "mcp_result"]);
const PUSH_TYPES: ReadonlySet<string> = new Set(["notice", "approval", "approval_closed"]);

export function isFinalFrame(frame: ServerFrame): frame is FinalFrame {
  return FINAL_TYPES.has(frame.type);
}

export function isPushFrame(frame: ServerFrame): frame is PushFrame {
  return PUSH_TYPES.has(frame.type);
}

/** The line that declares a connection interactive: it is then sent notices and approvals. */
export const INTERACTIVE_LINE = "/interactive";
/**
 * The line that stops the message being answered on this connection (its tools and an approval it waits
 * for), handled at once; its answer is that message's own final frame. Nothing running: a `notice` says so.
 */
export const STOP_LINE = "/stop";
/** The line that answers an approval: `/approve <id> once|always|deny`. */
export const APPROVE_LINE = /^\/approve\s+(\S+)\s+(once|always|deny)\s*$/;

export function encodeFrame(frame: ServerFrame): string {
  return `${JSON.stringify(frame)}\n`;
}
