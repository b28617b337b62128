/**
 * One log line per request (method, path without its query, status, duration, how it authenticated, the
 * client's address), so what reached the server is visible without exposing query strings, which may hold
 * search text. Turned off with `plugin.webui.request_log = false`.
 */
import type { MiddlewareHandler } from "hono";
import type { WebEnv } from "./context.js";

export function requestLog(enabled: () => boolean, write: (line: string) => void): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      if (enabled()) {
        const ms = Math.round(performance.now() - started);
        const auth = c.get("authKind") ?? "none";
        const address = c.get("clientAddress") ?? "?";
        write(`${c.req.method} ${c.req.path.slice(0, 300)} ${c.res.status} ${ms}ms auth=${auth} from ${address}`);
      }
    }
  };
}
