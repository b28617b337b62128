/**
 * The dashboard's live events: one EventSource on /api/v1/chat/events. Every frame is a named event
 * (`event: <bus type>`, `id: <seq>`, data the whole AgentEvent). EventSource reconnects on its own and sends
 * Last-Event-ID, and the server replays what was missed from its ring; an event can still arrive twice
 * around a reconnect, so each `seq` is passed on once.
 */

export interface BusEvent {
  seq: number;
  type: string;
  payload: Record<string, unknown>;
}

type Listener = (event: BusEvent) => void;

/** Sequence numbers remembered to drop repeats; a replay never reaches further back than the server's ring. */
const SEEN_LIMIT = 2048;

export class EventStream {
  private source: EventSource | null = null;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly seen = new Set<number>();
  private lastSeq = 0;

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

  close(): void {
    this.source?.close();
    this.source = null;
  }

  /** Opens the stream unless it is open; after a 401 (logged out) EventSource gives up, so this starts anew. */
  connect(): void {
    if (this.source && this.source.readyState !== EventSource.CLOSED) return;
    this.source = new EventSource("/api/v1/chat/events");
    for (const type of this.listeners.keys()) this.source.addEventListener(type, this.handle);
  }

  private readonly handle = (msg: Event): void => {
    const { lastEventId, data, type } = msg as MessageEvent<string>;
    const seq = Number(lastEventId);
    if (Number.isInteger(seq) && seq > 0) {
      if (this.seen.has(seq)) return;
      this.remember(seq);
    }
    let payload: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(data) as { payload?: Record<string, unknown> };
      payload = parsed.payload ?? (parsed as Record<string, unknown>);
    } catch {
      payload = { text: data };
    }
    for (const listener of this.listeners.get(type) ?? []) listener({ seq, type, payload });
  };

  private remember(seq: number): void {
    this.seen.add(seq);
    this.lastSeq = Math.max(this.lastSeq, seq);
    if (this.seen.size <= SEEN_LIMIT) return;
    const cutoff = this.lastSeq - SEEN_LIMIT;
    for (const old of this.seen) if (old <= cutoff) this.seen.delete(old);
  }
}

export const events = new EventStream();
