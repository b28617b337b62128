/**
 * Plugin management over HTTP, the same `pluginMgr` API `/plugins` uses: list, reload (external plugins:
 * the answer says what each one did), enable, disable and restart. The web UI cannot disable or restart
 * itself (its own stop would wait for this very request).
 */
import type { PluginInfo, PluginSDK } from "@homeagent/sdk";
import { readJson } from "../body.js";
import { ApiError, type RouteGroup } from "../context.js";
import { optionalString } from "../params.js";
import { sdkCall } from "../sdk-errors.js";

const MAX_NAME_CHARS = 128;
/** A Map, not an object: a path segment such as "constructor" must find nothing. */
const ACTIONS = new Map<string, (sdk: PluginSDK, name: string) => Promise<void>>([
  ["enable", (sdk, name) => sdk.pluginMgr.enable(name)],
  ["disable", (sdk, name) => sdk.pluginMgr.disable(name)],
  ["restart", (sdk, name) => sdk.pluginMgr.restart(name)],
]);

export const pluginsRoutes: RouteGroup = (app, { sdk, limits }) => {
  // `now`: the daemon's clock, which a page measures each plugin's uptime against (not its own).
  app.get("/api/v1/plugins", (c) => c.json({ plugins: sdk.pluginMgr.list(), now: Date.now() }));

  app.post("/api/v1/plugins/reload", async (c) => {
    const body = c.req.header("content-type") ? await readJson(c, limits.maxJsonBytes) : {};
    const name = optionalString(body, "name", MAX_NAME_CHARS);
    return c.json(await sdkCall(() => sdk.pluginMgr.reload(name)));
  });

  app.post("/api/v1/plugins/:name/:action", async (c) => {
    const name = c.req.param("name");
    const action = c.req.param("action");
    const run = ACTIONS.get(action);
    if (!run) {
      throw new ApiError(
        404,
        "not_found",
        `there is no /api/v1/plugins/:name/${action.slice(0, 40)}; use enable, disable or restart`,
      );
    }
    await sdkCall(() => run(sdk, name));
    return c.json({ plugin: find(sdk, name) });
  });
  return undefined;
};

/** The plugin's state after the change; null when it is gone (a removed directory that was re-enabled). */
function find(sdk: PluginSDK, name: string): PluginInfo | null {
  return sdk.pluginMgr.list().find((p) => p.name === name) ?? null;
}
