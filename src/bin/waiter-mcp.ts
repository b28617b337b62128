/**
 * `waiter mcp`: an MCP stdio server (the official SDK's) in front of the running homed, for another agent —
 * Claude Desktop, Cursor, any MCP client. Each tools/list and tools/call becomes one line on the cli socket
 * (`/mcp tools`, `/mcp call …`), answered by the cli plugin with the tools the user allows, so this side
 * decides nothing. stdout carries MCP messages only; anything else goes to stderr.
 */
import {
  type FinalFrame,
  MCP_TOOLS_LINE,
  type McpToolResult,
  mcpCallLine,
  UNAUTHORIZED,
} from "@homeagent/cli-protocol";
// The low-level Server: the tools' JSON Schemas are the kernel's own, passed through as they are.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { VERSION } from "../version.js";
import type { DaemonLink } from "./waiter-link.js";
import { UNAUTHORIZED_HINT } from "./waiter-output.js";

/** Serves until the MCP client closes stdin; fails first, with homed's reason, if homed cannot be asked. */
export async function runMcp(link: DaemonLink): Promise<number> {
  try {
    // Asked before serving: a daemon that is down or refuses the key makes waiter exit with the reason,
    // rather than start an MCP server that cannot answer anything.
    await listTools(link);
    const server = new Server({ name: "homeagent", version: VERSION }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listTools(link) }));
    server.setRequestHandler(CallToolRequestSchema, async ({ params }) =>
      callTool(link, params.name, params.arguments ?? {}),
    );
    server.onerror = (err) => process.stderr.write(`waiter mcp: ${errorMessage(err)}\n`);
    const closed = new Promise<void>((resolve) => {
      server.onclose = resolve;
    });
    // The client ends the session by closing our stdin, which the transport does not watch for.
    process.stdin.once("end", () => void server.close());
    await server.connect(new StdioServerTransport());
    await closed;
    return 0;
  } finally {
    link.close();
  }
}

async function listTools(link: DaemonLink): Promise<Tool[]> {
  const frame = await link.request(MCP_TOOLS_LINE);
  if (frame.type === "mcp_tools") return frame.tools as Tool[];
  throw refusal(frame);
}

/** Every failure, homed's included (stopped, restarting), is a tool error the calling model can read. */
async function callTool(link: DaemonLink, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  let result: McpToolResult;
  try {
    const frame = await link.request(mcpCallLine(name, args));
    if (frame.type !== "mcp_result") throw refusal(frame);
    result = frame.result;
  } catch (err) {
    result = { content: [{ type: "text", text: errorMessage(err) }], isError: true };
  }
  return result as CallToolResult;
}

function refusal(frame: FinalFrame): HomeAgentError {
  if (frame.type !== "error") {
    return new HomeAgentError({ code: "bad_frame", message: `homed answered an MCP line with a ${frame.type} frame` });
  }
  return frame.error === UNAUTHORIZED
    ? new HomeAgentError({
        code: "api_key_rejected",
        message: `${UNAUTHORIZED_HINT} (for an MCP client: in the "env" of its waiter entry)`,
      })
    : new HomeAgentError({ code: "daemon_refused", message: `homed: ${frame.error}` });
}
