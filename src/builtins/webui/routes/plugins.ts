/**
 * Plugin management over HTTP, the same `pluginMgr` API `/plugins` uses: list, reload (external plugins),
 * enable and disable. The web UI cannot disable itself (its own stop would wait for this very request).
 */
import type { PluginInfo, PluginSDK } from "@homeagent/sdk";
import { readJson } from "../body.js";
import { ApiError, type RouteGroup } from "../context.js";
import { sdkError } from "../errors.js";
import { optionalString } from "../params.js";

const STATUS = {
  plugin_not_found: 404,
  plugin_not_reloadable: 409,
  plugin_self_disable: 409,
  plugin_start_failed: 502,
  plugin_shutting_down: 503,
} as const;
const MAX_NAME_CHARS = 128;

export const pluginsRoutes: RouteGroup = (app, { sdk, limits }) => {
  app.get("/api/v1/plugins", (c) => c.json({ plugins: sdk.pluginMgr.list() }));

  app.post("/api/v1/plugins/reload", async (c) => {
    const body = c.req.header("content-type") ? await readJson(c, limits.maxJsonBytes) : {};
    const name = optionalString(body, "name", MAX_NAME_CHARS);
    try {
      return c.json(await sdk.pluginMgr.reload(name));
    } catch (err) {
      throw sdkError(err, STATUS, 400);
    }
  });

  app.post("/api/v1/plugins/:name/:action", async (c) => {
    const name = c.req.param("name");
    const action = c.req.param("action");
    if (action !== "enable" && action !== "disable") {
      throw new ApiError(
        404,
        "not_found",
        `there is no /api/v1/plugins/:name/${action.slice(0, 40)}; use enable or disable`,
      );
    }
    try {
      await (action === "enable" ? sdk.pluginMgr.enable(name) : sdk.pluginMgr.disable(name));
    } catch (err) {
      throw sdkError(err, STATUS, 400);
    }
    return c.json({ plugin: find(sdk, name) });
  });
  return undefined;
};

/** The plugin's state after the change; null when it is gone (a removed directory that was re-enabled). */
function find(sdk: PluginSDK, name: string): PluginInfo | null {
  return sdk.pluginMgr.list().find((p) => p.name === name) ?? null;
}
