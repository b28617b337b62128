/**
 * Built-in `mcp_server` plugin: the home of the settings that decide what HomeAgent's memory offers other
 * agents over MCP (plugin.mcp_server.*). It serves nothing itself: the cli plugin answers `waiter mcp` and
 * the webui plugin /mcp, both reading these settings through sdk.config, because built-ins cannot import
 * each other and a setting must be declared by exactly one plugin.
 */
import { definePlugin, type Plugin } from "@homeagent/sdk";
import { MCP_SERVER_SETTINGS } from "./settings.js";

export function createMcpServerPlugin(): Plugin {
  return definePlugin({
    name: "mcp_server",
    start: (sdk) => sdk.settings.define(MCP_SERVER_SETTINGS),
  });
}
