/**
 * GET /api/v1/chat/events: the SSE stream of the daemon's events (see sse-hub.ts). A reconnecting client
 * sends Last-Event-ID, or `?lastEventId=` when it cannot set headers, and gets what it missed.
 */
import type { HttpBindings } from "@hono/node-server";
import type { RouteGroup } from "../context.js";
import type { SseHub } from "../sse-hub.js";

export function eventsRoutes(hub: SseHub): RouteGroup {
  return (app, { sdk }) => {
    app.get("/api/v1/chat/events", (c) => {
      const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
      // A stream opened with a session lives only as long as the session (logout, expiry, reset).
      const session = c.get("authKind") === "session" ? c.get("session") : undefined;
      return hub.connect({
        lastEventId: c.req.header("last-event-id") ?? c.req.query("lastEventId"),
        destroy: outgoing ? () => outgoing.destroy() : undefined,
        stillAuthorized: session ? () => sdk.auth.session(session.id) !== null : undefined,
      });
    });
    return () => hub.close();
  };
}
