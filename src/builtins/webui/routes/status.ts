/** `GET /api/v1/status`: the small "is it up, is it busy" answer a client polls. */
import type { RouteGroup } from "../context.js";

export const statusRoutes: RouteGroup = (app, { sdk, startedAt }) => {
  app.get("/api/v1/status", (c) => {
    const s = sdk.kernel.status();
    return c.json({
      running: true,
      version: s.version,
      uptimeS: s.uptimeS,
      startedAt,
      busy: s.busy,
      queued: s.queued,
    });
  });
  return undefined;
};
