/**
 * The MCP servers for the dashboard: `GET /api/v1/mcp/servers` (each server's state, last error, log lines
 * and tools) and `POST /api/v1/mcp/servers/:name/restart`, asked of the mcp plugin's own tools
 * (sdk.runTool), as a built-in cannot import another. While that plugin is not running both are 503 with
 * how to turn it on. The server list itself is the setting `plugin.mcp.servers` (PUT /api/v1/settings).
 */
import { type PluginSDK, SdkError } from "@homeagent/sdk";
import { ApiError, type RouteGroup } from "../context.js";
import { toApiError } from "../sdk-errors.js";

/** A server's name as plugin.mcp.servers allows it (src/builtins/mcp/servers.ts). */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

interface Listed {
  name: string;
}

export const mcpServersRoutes: RouteGroup = (app, { sdk }) => {
  app.get("/api/v1/mcp/servers", async (c) => c.json({ servers: await servers(sdk) }));

  app.post("/api/v1/mcp/servers/:name/restart", async (c) => {
    const name = c.req.param("name");
    // Asked first so an unknown name is a 404, not the tool's refusal.
    if (!SERVER_NAME.test(name) || !(await servers(sdk)).some((s) => s.name === name)) {
      throw new ApiError(404, "not_found", "no MCP server of that name is running: GET /api/v1/mcp/servers lists them");
    }
    return c.json(parsed(await mcpTool(sdk, "mcp_restart", { server: name })));
  });
  return undefined;
};

async function servers(sdk: PluginSDK): Promise<Listed[]> {
  const list = parsed(await mcpTool(sdk, "mcp_servers", { log: true }));
  if (!Array.isArray(list)) throw new ApiError(502, "plugin_bad_answer", "the mcp plugin's server list is no list");
  return list as Listed[];
}

async function mcpTool(sdk: PluginSDK, tool: string, args: Record<string, unknown>): Promise<string> {
  try {
    return await sdk.runTool(tool, args);
  } catch (err) {
    if (err instanceof SdkError && err.code === "not_found") {
      throw new ApiError(503, "unavailable", "the mcp plugin is not running: enable it (waiter: /plugins enable mcp)");
    }
    throw toApiError(err);
  }
}

/** A tool's answer is JSON; one cut at the daemon's tool-result limit is not, and is said so. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(
      502,
      "plugin_bad_answer",
      "the mcp plugin's answer was too long to read whole (over the daemon's tool-result limit): fewer servers or tools make it fit",
    );
  }
}
