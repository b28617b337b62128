/**
 * The built-in plugins, in start order, with the capabilities each may use. Each uses only the public SDK;
 * `builtin: true` is what lets them call the built-in-only members (publish), which external plugins never
 * get.
 */
import type { Capability, Plugin } from "@homeagent/sdk";
import { createCfgmgrPlugin } from "./cfgmgr/plugin.js";
import { createCliPlugin } from "./cli/plugin.js";
import { createCmdPlugin } from "./cmd/plugin.js";
import { createFilesPlugin } from "./files/plugin.js";
import { createHealthcheckPlugin } from "./healthcheck/plugin.js";
import { createMcpPlugin, MCP_TOOL_LIMIT } from "./mcp/plugin.js";
import { createMcpServerPlugin } from "./mcp_server/plugin.js";
import { createTimerPlugin } from "./timer/plugin.js";
import { createWebuiPlugin } from "./webui/plugin.js";

export interface BuiltinPlugin {
  name: string;
  capabilities: readonly Capability[];
  builtin: true;
  /** Its config writes are the model's: only `agentWritable` settings (PluginFactory.forModel). */
  forModel?: true;
  /** Tools it may have registered at once, instead of the usual 128 (PluginFactory.maxTools). */
  maxTools?: number;
  create(): Plugin;
}

export function builtinPlugins(): BuiltinPlugin[] {
  return [
    {
      name: "cli",
      // Messages in, status and /settings, /llm, /memory, /plugins and /auth: what waiter's commands need.
      capabilities: [
        "io",
        "events",
        "settings_cross",
        "kernel_status",
        "llm_admin",
        "auth",
        "memory",
        "memory_admin",
        "doc_memory",
        "social",
        "plugin_mgr",
      ],
      builtin: true,
      create: () => createCliPlugin(),
    },
    {
      name: "webui",
      // The HTTP API: chat, settings, memory, knowledge, adapters, plugins and status, behind sdk.auth.
      capabilities: [
        "io",
        "events",
        "settings_cross",
        "kernel_status",
        "llm_admin",
        "auth",
        "memory",
        "memory_admin",
        "doc_memory",
        "knowledge",
        "plugin_mgr",
        // Its uploads, replay ring and cached replies hold what the user said.
        "forget_hook",
      ],
      builtin: true,
      create: () => createWebuiPlugin(),
    },
    {
      name: "timer",
      // Sends reminders (io), reads core.agent.timezone (settings_cross; nothing else is read or written),
      // and forgets the reminders' text when the user forgets it.
      capabilities: ["io", "settings_cross", "forget_hook"],
      builtin: true,
      create: () => createTimerPlugin(),
    },
    {
      name: "cmd",
      // Asks the user before a command outside the allow list (sdk.ask needs nothing more), sends a
      // background command's result (io), and forgets its history's command lines.
      capabilities: ["io", "forget_hook"],
      builtin: true,
      create: () => createCmdPlugin(),
    },
    {
      name: "files",
      // Its own tools only; a write outside the workspace asks the user (sdk.ask needs nothing more).
      capabilities: [],
      builtin: true,
      create: () => createFilesPlugin(),
    },
    {
      name: "mcp",
      // Its servers' tools (asking the user before those that are not read-only needs nothing more), and a
      // `system` event when a server goes down or comes back (events, to publish).
      capabilities: ["events"],
      builtin: true,
      // Every server's tools stand in one plugin's name; the prompt's tool budget (tool_search) bounds them.
      maxTools: MCP_TOOL_LIMIT,
      create: () => createMcpPlugin(),
    },
    {
      name: "cfgmgr",
      // Reads every setting (secrets masked) and changes only the ones marked agentWritable (settings_cross).
      capabilities: ["settings_cross"],
      builtin: true,
      // What it writes, the model asked for: the registry refuses every key not marked agentWritable.
      forModel: true,
      create: () => createCfgmgrPlugin(),
    },
    {
      name: "mcp_server",
      // Declares plugin.mcp_server.* only; cli (waiter mcp) and webui (/mcp) serve the tools and read them.
      capabilities: [],
      builtin: true,
      create: () => createMcpServerPlugin(),
    },
    {
      name: "healthcheck",
      capabilities: [
        // Each plugin's state and last error (it never enables, disables or reloads one).
        "plugin_mgr",
        // Every tool's definition (kernel.tools), the daemon's status, the LLM sources and their adapters.
        "kernel_status",
        // llm.test: one tiny request per source, only when the caller asks to probe (it never switches sources).
        "llm_admin",
        // memory.check (read-only integrity check) and the newest event's date for the clock check.
        "memory",
        // tool_call events: how long each tool call took, for healthcheck_perf.
        "events",
        // selfTask: the self-test, when the user turns it on (read-only tools only; it sends nothing).
        "io",
      ],
      builtin: true,
      create: () => createHealthcheckPlugin(),
    },
  ];
}
