/**
 * The dashboard's live events: one EventSource on /api/v1/chat/events. Every frame is a named event
 * (`event: <bus type>`, `id: <seq>`, data the whole AgentEvent). EventSource reconnects on its own and sends
 * Last-Event-ID, and the server replays what was missed from its ring — but not the token deltas, which are
 * live only. So listeners are told when events may have been missed (a reconnect, the server's `gap`
 * notice), and a running reply waits for its final text instead of showing a hole.
 *
 * The stream is ordered by `seq`: one at or below the last passed on is a repeat and dropped, except as
 * the first after a reconnect, where it means the daemon restarted and counts from 1 again. A stream made
 * anew (after a logout, say) asks for a replay with `?lastEventId=`. No DOM types here, so node tests
 * drive it with a fake source.
 */

export interface BusEvent {
  seq: number;
  type: string;
  /** "kernel", or the plugin that published it. */
  source?: string;
  payload: Record<string, unknown>;
}

type Listener = (event: BusEvent) => void;

/** What of an EventSource this uses. */
export interface SourceLike {
  readonly readyState: number;
  addEventListener(type: string, listener: (event: MessageLike) => void): void;
  close(): void;
}

export interface MessageLike {
  readonly type: string;
  readonly data?: unknown;
  readonly lastEventId?: string;
}

/** EventSource.CLOSED */
const CLOSED = 2;
const EVENTS_URL = "/api/v1/chat/events";

export class EventStream {
  private source: SourceLike | null = null;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly missedListeners = new Set<() => void>();
  /** The highest seq passed on. */
  private last = 0;
  /** The current source has been open before: its next open is a reconnect. */
  private opened = false;
  /** Since the last (re)connect no event has been passed on. */
  private fresh = false;

  constructor(private readonly open: (url: string) => SourceLike) {}

  /** Listens to one event type, opening the stream on first use; returns the unsubscribe function. */
  on(type: string, listener: Listener): () => void {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
      this.source?.addEventListener(type, this.handle);
    }
    set.add(listener);
    this.connect();
    return () => {
      set.delete(listener);
    };
  }

  /** Called whenever events may have been lost (a reconnect or the server's gap notice). */
  onMissed(listener: () => void): () => void {
    this.missedListeners.add(listener);
    return () => {
      this.missedListeners.delete(listener);
    };
  }

  close(): void {
    this.source?.close();
    this.source = null;
  }

  /** Opens the stream unless it is open; after a 401 (logged out) EventSource gives up, so this starts anew. */
  connect(): void {
    if (this.source && this.source.readyState !== CLOSED) return;
    const source = this.open(this.last > 0 ? `${EVENTS_URL}?lastEventId=${this.last}` : EVENTS_URL);
    this.source = source;
    this.opened = false;
    source.addEventListener("open", this.onOpen);
    source.addEventListener("gap", this.missed);
    for (const type of this.listeners.keys()) source.addEventListener(type, this.handle);
  }

  private readonly onOpen = (): void => {
    // A first open after events were seen is a new stream after a closed one: also a reconnect.
    const reconnect = this.opened || this.last > 0;
    this.opened = true;
    if (!reconnect) return;
    this.fresh = true;
    this.missed();
  };

  private readonly missed = (): void => {
    for (const listener of this.missedListeners) listener();
  };

  private readonly handle = (msg: MessageLike): void => {
    const seq = Number(msg.lastEventId);
    if (Number.isInteger(seq) && seq > 0) {
      if (seq <= this.last && !this.fresh) return;
      this.last = seq;
      this.fresh = false;
    }
    let payload: Record<string, unknown> = {};
    let source: string | undefined;
    try {
      const parsed = JSON.parse(String(msg.data)) as { payload?: Record<string, unknown>; source?: unknown };
      payload = parsed.payload ?? (parsed as Record<string, unknown>);
      if (typeof parsed.source === "string") source = parsed.source;
    } catch {
      payload = { text: msg.data };
    }
    for (const listener of this.listeners.get(msg.type) ?? []) listener({ seq, type: msg.type, source, payload });
  };
}

type SourceConstructor = new (url: string) => SourceLike;

export const events = new EventStream(
  (url) => new (globalThis as unknown as { EventSource: SourceConstructor }).EventSource(url),
);
