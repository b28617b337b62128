/**
 * GET /api/v1/chat/events: the SSE stream of the daemon's events (see sse-hub.ts). A reconnecting client
 * sends Last-Event-ID, or `?lastEventId=` when it cannot set headers, and gets what it missed.
 */
import type { HttpBindings } from "@hono/node-server";
import type { RouteGroup } from "../context.js";
import type { SseHub } from "../sse-hub.js";
import { streamTie } from "../stream-tie.js";

export function eventsRoutes(hub: SseHub): RouteGroup {
  return (app, deps) => {
    app.get("/api/v1/chat/events", (c) => {
      // A stream opened with a session lives only as long as the session (logout, expiry, reset).
      const tie = streamTie(c, deps);
      return hub.connect({
        lastEventId: c.req.header("last-event-id") ?? c.req.query("lastEventId"),
        socket: (c.env as Partial<HttpBindings> | undefined)?.outgoing,
        stillAuthorized: tie.stillAuthorized,
        onOpen: tie.hold,
        dashboard: c.get("authKind") === "session",
      });
    });
    return () => hub.close();
  };
}
