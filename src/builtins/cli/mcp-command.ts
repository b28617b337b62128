/**
 * `/mcp tools` and `/mcp call <json>`: what `waiter mcp` asks on behalf of another agent's MCP client. The
 * tools, their schemas and calling them are @homeagent/cli-protocol's (the webui plugin serves the same at
 * /mcp); this side only answers the lines.
 */
import { callMcpTool, type FinalFrame, mcpTools, parseMcpLine } from "@homeagent/cli-protocol";
import type { PluginSDK } from "@homeagent/sdk";
import { CLI_CHANNEL } from "./cli-channel.js";

export const MCP_HELP = [
  "/mcp tools, /mcp call <json>  what `waiter mcp` speaks: the MCP tools offered, a call of one",
];

/**
 * A `chat` turn comes in on the terminal's channel, as the cli's own, marked by its source: its tools may ask
 * the user at an interactive waiter, and what it sends later (a reminder) reaches the terminal.
 */
const MCP_SOURCE = `${CLI_CHANNEL}/mcp`;

export async function mcpCommand(sdk: PluginSDK, rest: string, signal: AbortSignal): Promise<FinalFrame> {
  const line = parseMcpLine(rest);
  if ("tools" in line) return { type: "mcp_tools", tools: mcpTools(sdk) };
  const { name, arguments: args } = line.call;
  const result = await callMcpTool(sdk, name, args, { source: MCP_SOURCE, channel: CLI_CHANNEL, signal });
  return { type: "mcp_result", result };
}
