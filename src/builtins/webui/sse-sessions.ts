/**
 * Streams opened with a login session end the moment the session does, not at their next heartbeat: the
 * logout route tells this registry, and a timer fires at the session's expiry. A credentials reset made by
 * `homed --reset-credentials` in another process is seen by nothing here; each stream's heartbeat re-check
 * (`stillAuthorized`) ends those, and stays the backstop for everything else.
 */
import type { AuthSession } from "@homeagent/sdk";
import type { SseStream } from "./sse-stream.js";

/** setTimeout's longest delay; a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Held {
  streams: Set<SseStream>;
  expiry: NodeJS.Timeout;
}

export class SessionStreams {
  /** By session id; an entry lives while the session has an open stream. */
  private readonly sessions = new Map<string, Held>();

  /** Ties an open stream to its session until the stream closes. */
  hold(session: Pick<AuthSession, "id" | "expiresAt">, stream: SseStream): void {
    if (!stream.isOpen) return;
    let held = this.sessions.get(session.id);
    if (!held) {
      held = { streams: new Set(), expiry: this.expireAt(session) };
      this.sessions.set(session.id, held);
    }
    held.streams.add(stream);
    void stream.closed.then(() => this.release(session.id, stream));
  }

  /** Ends every open stream of the session at once; how many there were. */
  end(sessionId: string): number {
    const held = this.sessions.get(sessionId);
    if (!held) return 0;
    this.sessions.delete(sessionId);
    clearTimeout(held.expiry);
    for (const stream of held.streams) stream.revoke();
    return held.streams.size;
  }

  /** Open streams held, over all sessions. */
  get size(): number {
    let n = 0;
    for (const held of this.sessions.values()) n += held.streams.size;
    return n;
  }

  private release(sessionId: string, stream: SseStream): void {
    const held = this.sessions.get(sessionId);
    if (!held?.streams.delete(stream) || held.streams.size > 0) return;
    this.sessions.delete(sessionId);
    clearTimeout(held.expiry);
  }

  private expireAt(session: Pick<AuthSession, "id" | "expiresAt">): NodeJS.Timeout {
    const timer = setTimeout(
      () => {
        const held = this.sessions.get(session.id);
        if (!held) return;
        if (Date.now() < session.expiresAt) held.expiry = this.expireAt(session);
        else this.end(session.id);
      },
      Math.min(MAX_TIMER_MS, Math.max(0, session.expiresAt - Date.now())),
    );
    timer.unref();
    return timer;
  }
}
