/**
 * The `plugin.mcp_server.*` settings, declared so the settings page lists them and every write is validated.
 * The cli and webui plugins read them on each MCP request (@homeagent/cli-protocol's mcpSettings), so a
 * change applies to the next tools/list or call without a restart.
 */
import {
  MCP_CHAT_TIMEOUT_S,
  MCP_NO_WRITE_TOOLS,
  MCP_WRITE_TOOLS,
  MCP_WRITE_TOOLS_PATTERN,
} from "@homeagent/cli-protocol";
import type { SettingDef } from "@homeagent/sdk";

export const MCP_SERVER_SETTINGS: SettingDef[] = [
  {
    key: "write_tools",
    default: MCP_NO_WRITE_TOOLS,
    type: "string",
    maxLength: 200,
    pattern: MCP_WRITE_TOOLS_PATTERN,
    placeholder: MCP_WRITE_TOOLS.join(","),
    category: "access",
    description: `Tools that change memory or talk to the agent, offered to other agents over MCP besides the read-only ones (memory_recall, doc_query, knowledge_search): a comma list of ${MCP_WRITE_TOOLS.join(", ")}, or ${MCP_NO_WRITE_TOOLS} (read-only). An agent that writes can plant false memories, so list only what you trust it with.`,
    displayName: "MCP write tools",
    translations: {
      zh: {
        displayName: "MCP 写入工具",
        description: `除只读工具（memory_recall、doc_query、knowledge_search）外，通过 MCP 提供给其他智能体的、会修改记忆或与智能体对话的工具：用逗号分隔，可选 ${MCP_WRITE_TOOLS.join("、")}；填 ${MCP_NO_WRITE_TOOLS} 即只读。能写入的智能体可能植入错误的记忆，只开放你信任它使用的工具。`,
      },
    },
  },
  {
    key: "http",
    default: "false",
    type: "bool",
    category: "access",
    description:
      "Serve the same MCP tools over Streamable HTTP at /mcp on the web server, to clients that send the API key (Authorization: Bearer); a login's session cookie is never accepted there.",
    displayName: "MCP over HTTP (/mcp)",
    translations: {
      zh: {
        displayName: "通过 HTTP 提供 MCP（/mcp）",
        description:
          "在网页服务器的 /mcp 上以 Streamable HTTP 提供同样的 MCP 工具，仅限携带 API 密钥（Authorization: Bearer）的客户端；那里从不接受登录会话的 Cookie。",
      },
    },
  },
  {
    key: "chat_timeout",
    default: String(MCP_CHAT_TIMEOUT_S.default),
    type: "int",
    min: MCP_CHAT_TIMEOUT_S.min,
    max: MCP_CHAT_TIMEOUT_S.max,
    unit: "s",
    category: "access",
    description: "How long an MCP client's chat call may wait for the agent's reply; then the turn is stopped.",
    displayName: "MCP chat time limit",
    translations: {
      zh: {
        displayName: "MCP 对话时限",
        description: "MCP 客户端的 chat 调用等待智能体回复的最长时间；超时后该轮对话会被停止。",
      },
    },
  },
];
