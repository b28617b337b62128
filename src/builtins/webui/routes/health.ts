/**
 * `GET /api/v1/health`: the healthcheck plugin's full report (plugins, tool definitions, LLM sources, memory
 * integrity, kernel, disk, clock), for the dashboard and for monitoring. Asked of that plugin's tool
 * (sdk.runTool), as a built-in cannot import another; `?probe=1` also sends each LLM source a test request.
 */
import { SdkError } from "@homeagent/sdk";
import { ApiError, type RouteGroup } from "../context.js";

export const healthRoutes: RouteGroup = (app, { sdk }) => {
  app.get("/api/v1/health", async (c) => {
    const probe = c.req.query("probe") === "1";
    try {
      return c.json(JSON.parse(await sdk.runTool("healthcheck", probe ? { probe_llm: true } : {})));
    } catch (err) {
      if (err instanceof SdkError && err.code === "not_found") {
        throw new ApiError(
          503,
          "unavailable",
          "the healthcheck plugin is not running: enable it (waiter: /plugins enable healthcheck)",
        );
      }
      throw err;
    }
  });
  return undefined;
};
