/**
 * The MCP servers for the dashboard: `GET /api/v1/mcp/servers` (each server's state, last error, log lines
 * and tools) and `POST /api/v1/mcp/servers/:name/restart`, asked of the mcp plugin's own tools
 * (sdk.runTool), as a built-in cannot import another. While that plugin is not running both are 503 with
 * how to turn it on. The server list itself is the setting `plugin.mcp.servers` (PUT /api/v1/settings).
 */
import type { PluginSDK } from "@homeagent/sdk";
import { ApiError, type RouteGroup } from "../context.js";
import { pluginToolJson } from "../plugin-tool.js";

interface Listed {
  name: string;
}

/** One server's page of tools, as `mcp_servers({server, offset})` answers. */
interface Page {
  toolList: unknown[];
  more: boolean;
}

/** Pages of one server's tools read for the dashboard: 10 × 100, more than a server may list. */
const MAX_PAGES = 10;

export const mcpServersRoutes: RouteGroup = (app, { sdk }) => {
  app.get("/api/v1/mcp/servers", async (c) => c.json({ servers: await withTools(sdk, await servers(sdk, true)) }));

  app.post("/api/v1/mcp/servers/:name/restart", async (c) => {
    const name = c.req.param("name");
    // Asked first so an unknown name is a 404, not the tool's refusal.
    if (!(await servers(sdk, false)).some((s) => s.name === name)) {
      throw new ApiError(404, "not_found", "no MCP server of that name is running: GET /api/v1/mcp/servers lists them");
    }
    return c.json(await pluginToolJson(sdk, "mcp", "mcp_restart", { server: name }));
  });
  return undefined;
};

async function servers(sdk: PluginSDK, log: boolean): Promise<Listed[]> {
  const list = await pluginToolJson(sdk, "mcp", "mcp_servers", { log });
  if (!Array.isArray(list)) throw new ApiError(502, "plugin_bad_answer", "the mcp plugin's server list is no list");
  return list as Listed[];
}

/** Each server with all its tools, read a page at a time: no answer of the plugin is over a tool's limit. */
async function withTools(sdk: PluginSDK, listed: Listed[]): Promise<Array<Listed & { tools: unknown[] }>> {
  return Promise.all(
    listed.map(async (server) => {
      const tools: unknown[] = [];
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = (await pluginToolJson(sdk, "mcp", "mcp_servers", {
          server: server.name,
          offset: tools.length,
        })) as Page;
        tools.push(...answer.toolList);
        if (!answer.more) break;
      }
      return { ...server, tools };
    }),
  );
}
