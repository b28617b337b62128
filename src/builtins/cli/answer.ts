/** What one client line asks for, turned into its final frame: `/auth`, a slash command, or a message. */
import type { FinalFrame } from "@homeagent/cli-protocol";
import { UNAUTHORIZED } from "@homeagent/cli-protocol";
import type { InputReply, PluginSDK } from "@homeagent/sdk";
import { approvalsCommand, inboxCommand } from "./approval-commands.js";
import { cmdCommand } from "./cmd-command.js";
import { runCommand } from "./commands.js";
import { healthCommand } from "./health-command.js";
import { historyCommand } from "./history-command.js";
import { mcpCommand } from "./mcp-command.js";
import { memoryCommand } from "./memory-commands.js";
import { pluginsCommand } from "./plugin-commands.js";

export const AUTHENTICATED: FinalFrame = { type: "response", content: "authenticated" };
const UNAUTHORIZED_FRAME: FinalFrame = { type: "error", error: UNAUTHORIZED };

function isAuthLine(line: string): boolean {
  return /^\/auth(\s|$)/.test(line);
}

/** Without a configured key any `/auth` line is accepted, so clients can always send one. */
export function verifyAuthLine(sdk: PluginSDK, line: string): boolean {
  if (!isAuthLine(line)) return false;
  return !sdk.auth.required() || sdk.auth.verify(line.slice("/auth".length).trim());
}

/**
 * `onQueued` gets the request id of a message as soon as the kernel has queued it, so its progress events
 * can be routed to this client; `signal` cancels the message (the client went away).
 */
export function answer(
  sdk: PluginSDK,
  line: string,
  signal: AbortSignal,
  onQueued: (requestId: string) => void,
): Promise<FinalFrame> | FinalFrame {
  if (isAuthLine(line)) return verifyAuthLine(sdk, line) ? AUTHENTICATED : UNAUTHORIZED_FRAME;
  if (/^\/memory(\s|$)/.test(line)) return memoryCommand(sdk, line.slice("/memory".length));
  if (/^\/plugins(\s|$)/.test(line)) return pluginsCommand(sdk, line.slice("/plugins".length));
  if (/^\/approvals(\s|$)/.test(line)) return approvalsCommand(sdk, line.slice("/approvals".length));
  if (line.trim() === "/inbox") return inboxCommand(sdk);
  if (/^\/cmd(\s|$)/.test(line)) return cmdCommand(sdk, line.slice("/cmd".length));
  if (/^\/history(\s|$)/.test(line)) return historyCommand(sdk, line.slice("/history".length));
  if (/^\/mcp(\s|$)/.test(line)) return mcpCommand(sdk, line.slice("/mcp".length), signal);
  if (/^\/health(\s|$)/.test(line)) return healthCommand(sdk, line.slice("/health".length));
  if (line.startsWith("/")) return runCommand(sdk, line);
  return chat(sdk, line, signal, onQueued);
}

async function chat(
  sdk: PluginSDK,
  text: string,
  signal: AbortSignal,
  onQueued: (requestId: string) => void,
): Promise<FinalFrame> {
  const reply = await sdk.injectInputSync("cli", "cli", text, { signal, onQueued });
  return reply.error ? { type: "error", error: reply.error } : responseFrame(reply);
}

function responseFrame(reply: InputReply): FinalFrame {
  const frame: FinalFrame = { type: "response", content: reply.content };
  if (reply.reasoningContent) frame.reasoning_content = reply.reasoningContent;
  if (reply.usage) frame.usage = reply.usage;
  return frame;
}
