/**
 * What HomeAgent serves to other agents over MCP, as the user set it (`plugin.mcp_server.*`, declared by the
 * built-in mcp_server plugin). Read here once for both transports, `waiter mcp` through the cli plugin and
 * /mcp on the web server, which cannot import each other. Unset, or declared by nobody, is the safe default:
 * read-only tools, no HTTP.
 */
import type { ConfigAPI } from "@homeagent/sdk";

/** Tools that only read memory: always offered. */
export const MCP_READ_TOOLS = ["memory_recall", "doc_query", "knowledge_search"] as const;
/**
 * Tools that write memory or speak to the agent as the user: an external agent could poison memory with
 * them, so each is offered only once the user lists it in `write_tools`.
 */
export const MCP_WRITE_TOOLS = ["memory_commit", "knowledge_create", "chat"] as const;
export type McpWriteTool = (typeof MCP_WRITE_TOOLS)[number];

export const MCP_SETTINGS_PREFIX = "plugin.mcp_server.";
export const MCP_WRITE_TOOLS_KEY = `${MCP_SETTINGS_PREFIX}write_tools`;
export const MCP_HTTP_KEY = `${MCP_SETTINGS_PREFIX}http`;
export const MCP_CHAT_TIMEOUT_KEY = `${MCP_SETTINGS_PREFIX}chat_timeout`;

/** Seconds a `chat` call may take; at most what the web server lets one request run (300 s), with room to answer. */
export const MCP_CHAT_TIMEOUT_S = { default: 120, min: 1, max: 270 } as const;

/** The `write_tools` value that offers none (as "" does, which /settings set cannot send). */
export const MCP_NO_WRITE_TOOLS = "none";
const names = MCP_WRITE_TOOLS.join("|");
/** What `write_tools` must be: "none", or a comma list of write tools' names; checked when it is written. */
export const MCP_WRITE_TOOLS_PATTERN = `\\s*${MCP_NO_WRITE_TOOLS}\\s*|\\s*(?:${names})\\s*(?:,\\s*(?:${names})\\s*)*`;

export interface McpSettings {
  writeTools: ReadonlySet<McpWriteTool>;
  http: boolean;
  chatTimeoutMs: number;
}

export function mcpSettings(config: Pick<ConfigAPI, "list">): McpSettings {
  const values = new Map(config.list(MCP_SETTINGS_PREFIX).map((e) => [e.key, e.value]));
  const listed = (values.get(MCP_WRITE_TOOLS_KEY) ?? "").split(",").map((s) => s.trim());
  const seconds = Number(values.get(MCP_CHAT_TIMEOUT_KEY));
  const timeoutS =
    Number.isInteger(seconds) && seconds >= MCP_CHAT_TIMEOUT_S.min && seconds <= MCP_CHAT_TIMEOUT_S.max
      ? seconds
      : MCP_CHAT_TIMEOUT_S.default;
  return {
    writeTools: new Set(MCP_WRITE_TOOLS.filter((tool) => listed.includes(tool))),
    http: values.get(MCP_HTTP_KEY) === "true",
    chatTimeoutMs: timeoutS * 1000,
  };
}
