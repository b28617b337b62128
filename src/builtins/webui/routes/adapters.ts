/**
 * The Lua provider adapters over HTTP: list, read, save (loaded and checked in the sandbox by the daemon
 * before it is written) and delete (refused while a source uses it, or for a bundled one).
 */
import { readJson } from "../body.js";
import { ApiError, type RouteGroup } from "../context.js";
import { MAX_EDITOR_BODY_BYTES } from "../limits.js";
import { requiredText } from "../params.js";
import { sdkCall } from "../sdk-errors.js";

/** The daemon's own cap on a script, checked here too so the refusal is a 413 before any Lua runs. */
const MAX_CODE_BYTES = 256 * 1024;

export const adaptersRoutes: RouteGroup = (app, { sdk }) => {
  app.get("/api/v1/adapters", (c) => c.json({ adapters: sdk.adapters.list() }));

  app.get("/api/v1/adapters/:name", (c) => {
    const name = c.req.param("name");
    const found = sdk.adapters.get(name);
    if (!found) throw notFound(name);
    return c.json(found);
  });

  app.put("/api/v1/adapters/:name", async (c) => {
    const body = await readJson(c, MAX_EDITOR_BODY_BYTES);
    const code = requiredText(body, "code", MAX_CODE_BYTES, "an adapter script must be smaller");
    return c.json(await sdkCall(() => sdk.adapters.put(c.req.param("name"), code)));
  });

  app.delete("/api/v1/adapters/:name", async (c) => {
    const name = c.req.param("name");
    const deleted = await sdkCall(() => sdk.adapters.delete(name));
    if (!deleted) throw notFound(name);
    return c.json({ deleted: name });
  });
  return undefined;
};

function notFound(name: string): ApiError {
  return new ApiError(404, "not_found", `there is no adapter ${name.slice(0, 100)}`);
}
