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

/** One server's page of tools, as `mcp_servers({server, offset})` answers. */
interface Page {
  toolList: unknown[];
  more: boolean;
}

/** Pages of one server's tools read for the dashboard: 10 × 100, more than a server may list. */
const MAX_PAGES = 10;

export const mcpServersRoutes: RouteGroup = (app, { sdk }) => {
  app.get("/api/v1/mcp/servers", async (c) => c.json({ servers: await withTools(sdk, await servers(sdk)) }));

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

/** Each server with all its tools, read a page at a time: no answer of the plugin is over a tool's limit. */
async function withTools(sdk: PluginSDK, listed: Listed[]): Promise<Array<Listed & { tools: unknown[] }>> {
  return Promise.all(
    listed.map(async (server) => {
      const tools: unknown[] = [];
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = parsed(await mcpTool(sdk, "mcp_servers", { server: server.name, offset: tools.length })) as Page;
        tools.push(...answer.toolList);
        if (!answer.more) break;
      }
      return { ...server, tools };
    }),
  );
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
      "the mcp plugin's answer was not JSON (cut at the daemon's tool-result limit?); see the daemon log",
    );
  }
}
