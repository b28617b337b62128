/**
 * The two lines `waiter mcp` sends for its MCP client, written and read here so both ends agree:
 * `/mcp tools` (answered by an `mcp_tools` frame) and `/mcp call <json>` with `{"name", "arguments"}`
 * (answered by an `mcp_result` frame). JSON keeps the arguments on one line: it escapes every newline.
 */
import { SdkError } from "@homeagent/sdk";

export const MCP_TOOLS_LINE = "/mcp tools";
const CALL_PREFIX = "/mcp call ";

export interface McpCall {
  name: string;
  arguments: Record<string, unknown>;
}

export function mcpCallLine(name: string, args: Record<string, unknown> = {}): string {
  return `${CALL_PREFIX}${JSON.stringify({ name, arguments: args })}`;
}

/** What follows `/mcp` on a line: the tool list, or a call; throws "invalid_argument" saying what is wrong. */
export function parseMcpLine(rest: string): { tools: true } | { call: McpCall } {
  const text = rest.trim();
  if (text === "tools") return { tools: true };
  const call = /^call\s+(.+)$/s.exec(text);
  if (!call) throw usage("");
  let value: unknown;
  try {
    value = JSON.parse(call[1]);
  } catch (err) {
    throw usage(`the call is not JSON (${(err as Error).message}); `);
  }
  const { name, arguments: args = {} } = (isObject(value) ? value : {}) as Record<string, unknown>;
  if (typeof name !== "string" || name === "" || !isObject(args)) {
    throw usage('the call needs a "name" and, if any, "arguments" as an object; ');
  }
  return { call: { name, arguments: args } };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function usage(problem: string): SdkError {
  return new SdkError({
    code: "invalid_argument",
    message: `${problem}usage: ${MCP_TOOLS_LINE}, or ${CALL_PREFIX}{"name": "<tool>", "arguments": {…}}`,
  });
}
