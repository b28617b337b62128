/**
 * POST /mcp: HomeAgent's memory for other agents over MCP's Streamable HTTP, the same tools `waiter mcp`
 * serves (@homeagent/cli-protocol decides which, and calls them). Stateless: each request gets its own MCP
 * server and transport, answered as one JSON body, so nothing is kept between requests. Off until the user
 * turns on plugin.mcp_server.http; only the API key opens it (auth-middleware.ts refuses a session cookie
 * here), so no page in the user's browser can call these tools with the dashboard's login.
 */
import { callMcpTool, MCP_HTTP_KEY, mcpSettings, mcpTools } from "@homeagent/cli-protocol";
import type { PluginSDK } from "@homeagent/sdk";
// The low-level Server: the tools' JSON Schemas are the kernel's own, passed through as they are.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { readJson } from "../body.js";
import { ApiError, type RouteGroup } from "../context.js";
import { OPENAI_CHANNEL } from "../openai/turn.js";

export const MCP_PATH = "/mcp";

/** A `chat` turn comes in on the channel of programs holding the API key, as the OpenAI endpoint's do. */
const MCP_CALLER = { source: `${OPENAI_CHANNEL}/mcp`, channel: OPENAI_CHANNEL };

export const mcpRoutes: RouteGroup = (app, { sdk, limits }) => {
  let version: string | undefined;
  app.post(MCP_PATH, async (c) => {
    if (!mcpSettings(sdk.config).http) {
      throw new ApiError(
        404,
        "not_found",
        `MCP over HTTP is off: turn it on with /settings set ${MCP_HTTP_KEY} true (or in Settings, Web & access)`,
      );
    }
    // Read here, within the JSON limit every route keeps; the transport takes it parsed.
    const body = await readJson(c, limits.maxJsonBytes);
    version ??= sdk.kernel.status().version;
    const server = mcpServer(sdk, version, c.req.raw.signal);
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { parsedBody: body });
    } finally {
      await server.close();
    }
  });
  return undefined;
};

function mcpServer(sdk: PluginSDK, version: string, signal: AbortSignal): Server {
  const server = new Server({ name: "homeagent", version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: mcpTools(sdk) as Tool[] }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async ({ params }) =>
      (await callMcpTool(sdk, params.name, params.arguments ?? {}, { ...MCP_CALLER, signal })) as CallToolResult,
  );
  return server;
}
