/**
 * The `plugin.mcp.*` settings, declared so the settings page lists them and every write is validated: the
 * server list is checked against its schema when written, and its `env` and `headers` values are secrets.
 * None of them is agentWritable: which programs run, and where tool calls go, is the user's choice.
 */
import type { SettingDef } from "@homeagent/sdk";
import { SERVERS_SCHEMA } from "./servers.js";

export const APPROVE_MODES = ["unless_read_only", "destructive", "always"] as const;
export type ApproveMode = (typeof APPROVE_MODES)[number];

export const MCP_SETTINGS: SettingDef[] = [
  {
    key: "servers",
    default: "{}",
    type: "json",
    schema: SERVERS_SCHEMA,
    secretFields: ["env", "headers"],
    category: "access",
    placeholder:
      '{"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]}}',
    description:
      'MCP servers by name: {"name": {"command", "args", "env", "cwd"}} to start a program (stdio), or {"name": {"url", "headers"}} for a server over HTTP; "disabled": true and "disabledTools": […] turn a server or some of its tools off. Claude Desktop\'s {"mcpServers": …} pastes as is. env and headers values are secrets.',
    displayName: "MCP servers",
    translations: {
      zh: {
        displayName: "MCP 服务器",
        description:
          '按名称列出 MCP 服务器：{"名称": {"command", "args", "env", "cwd"}} 启动一个程序（stdio），或 {"名称": {"url", "headers"}} 通过 HTTP 连接；"disabled": true 和 "disabledTools": […] 可关闭整个服务器或其中的工具。可直接粘贴 Claude Desktop 的 {"mcpServers": …}。env 和 headers 的值是机密。',
      },
    },
  },
  {
    key: "call_timeout",
    default: "60s",
    type: "duration",
    min: 1_000,
    max: 1_800_000,
    category: "access",
    description: "How long one MCP tool call may take; a call still running then is cancelled and the model told so.",
    displayName: "MCP call timeout",
    translations: {
      zh: {
        displayName: "MCP 调用超时",
        description: "单次 MCP 工具调用的最长时间；超时的调用会被取消并告知模型。",
      },
    },
  },
  {
    key: "max_result_chars",
    default: "20000",
    type: "int",
    min: 1_000,
    max: 100_000,
    unit: "characters",
    category: "access",
    description: "Text kept of one MCP tool result; the rest is cut, and the cut said.",
    displayName: "MCP result kept",
    translations: {
      zh: { displayName: "MCP 结果保留量", description: "每个 MCP 工具结果保留的字符数；其余被截断并注明。" },
    },
  },
  {
    key: "approve",
    default: "unless_read_only",
    type: "select",
    options: [...APPROVE_MODES],
    category: "access",
    description:
      "When an MCP tool call asks you first: unless_read_only (every tool not marked read-only by its server), destructive (only tools that may change or delete things), always. A tool marked destructive always asks.",
    displayName: "Ask before MCP tools",
    translations: {
      zh: {
        displayName: "MCP 工具调用前询问",
        description:
          "何时先询问你：unless_read_only（服务器未标为只读的工具都询问）、destructive（只询问可能修改或删除内容的工具）、always（每次都询问）。标为破坏性的工具总会询问。",
      },
    },
  },
];
