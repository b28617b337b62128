/**
 * Built-in `cfgmgr` plugin: the agent reads its own configuration, and changes the little of it a model may
 * change (the original's cfgmgr, §11). Default-deny: a setting is writable by a tool call only when its
 * definition says `agentWritable`; everything else — what widens permissions, moves data, or changes who the
 * agent is — stays the user's, in Settings or with /settings. Reading is open, secrets masked as everywhere.
 */
import { definePlugin, type Plugin, type PluginSDK, type ToolHandler } from "@homeagent/sdk";
import { configTools } from "./tools.js";

export function createCfgmgrPlugin(): Plugin {
  return definePlugin({
    name: "cfgmgr",
    start: (sdk: PluginSDK) => {
      for (const [def, handler] of configTools(sdk.config)) sdk.registerTool(def, handler as ToolHandler);
    },
  });
}
