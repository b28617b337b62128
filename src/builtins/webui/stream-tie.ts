/**
 * Ties a stream a request opens (events, OpenAI streaming) to that request's credentials: a session's end
 * ends it. Apart from the session registry (sse-sessions.ts) because it reads the request context, which
 * holds that registry.
 */
import type { Context } from "hono";
import type { WebDeps, WebEnv } from "./context.js";
import type { SseStream } from "./sse-stream.js";

/** How a stream a request opens stays tied to the credentials of that request. */
export interface StreamTie {
  /** For the stream's heartbeat; undefined when the request was not made with a session. */
  stillAuthorized?: () => boolean;
  /** Registers the opened stream so the session's end ends it at once. */
  hold(stream: SseStream): void;
}

/** The tie for a request made with the session cookie; one made with the API key has none (no login to end). */
export function streamTie(c: Context<WebEnv>, deps: WebDeps): StreamTie {
  const session = c.get("authKind") === "session" ? c.get("session") : undefined;
  if (!session) return { hold: () => {} };
  return {
    stillAuthorized: () => deps.sdk.auth.session(session.id) !== null,
    hold: (stream) => deps.sessionStreams?.hold(session, stream),
  };
}
