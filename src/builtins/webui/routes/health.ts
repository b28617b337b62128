/**
 * `GET /api/v1/health`: the healthcheck plugin's full report (plugins, tool definitions, LLM sources, memory
 * integrity, kernel, disk, clock), for the dashboard and for monitoring. Asked of that plugin's tool
 * (sdk.runTool), as a built-in cannot import another; `?probe=1` also sends each LLM source a test request,
 * `?recent=1` takes a memory check of the last 10 minutes if there is one.
 */
import type { RouteGroup } from "../context.js";
import { pluginToolJson } from "../plugin-tool.js";

export const healthRoutes: RouteGroup = (app, { sdk }) => {
  app.get("/api/v1/health", async (c) => {
    const args = {
      ...(c.req.query("probe") === "1" ? { probe_llm: true } : {}),
      // A poller's: a memory check of the last 10 minutes will do (a new one reads all of memory.db).
      ...(c.req.query("recent") === "1" ? { reuse_memory_check: true } : {}),
    };
    return c.json(await pluginToolJson(sdk, "healthcheck", "healthcheck", args));
  });
  return undefined;
};
