/**
 * @homeagent/cli-protocol: the line protocol of homed's cli socket, spoken by the cli plugin and `waiter`, and
 * the MCP tools its `/mcp` lines carry, which the webui plugin serves at /mcp too.
 */

export { type ForgetArgs, parseForgetArgs } from "./forget-args.js";
export {
  APPROVE_LINE,
  encodeFrame,
  type FinalFrame,
  INTERACTIVE_LINE,
  isFinalFrame,
  isPushFrame,
  LINE_TOO_LONG,
  MAX_LINE_BYTES,
  type ProgressFrame,
  type PushFrame,
  type ServerFrame,
  type SettingFrameEntry,
  SHUTTING_DOWN,
  STOP_LINE,
  UNAUTHORIZED,
} from "./frames.js";
export { LineSplitter } from "./line-splitter.js";
export { MCP_TOOLS_LINE, mcpCallLine, parseMcpLine } from "./mcp-lines.js";
export {
  MCP_CHAT_TIMEOUT_S,
  MCP_HTTP_KEY,
  MCP_NO_WRITE_TOOLS,
  MCP_WRITE_TOOLS,
  MCP_WRITE_TOOLS_PATTERN,
  mcpSettings,
} from "./mcp-settings.js";
export { callMcpTool, type McpToolDef, type McpToolResult, mcpTools } from "./mcp-tools.js";
export { CLI_SOCKET_NAME, cliSocketPath } from "./socket-path.js";
