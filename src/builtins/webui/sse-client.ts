/**
 * One client of the event stream: what the hub needs per client on top of the shared pull stream
 * (sse-stream.ts). The bus side only ever appends; past the queue limit an event is dropped and counted,
 * and once there is room again the client is told the range it missed (`event: gap`), so it knows to
 * reload. No event is sent twice where the replay and the live events meet.
 */
import { noticeFrame } from "./sse-frame.js";
import { SseStream, type SseStreamOptions } from "./sse-stream.js";

/** How long a frame may wait for others to share its socket write, and how many may wait at most. */
const FLUSH_MS = 16;
const FLUSH_ITEMS = 64;

export interface SseClientInfo {
  id: number;
  connectedAt: number;
  queued: number;
  sent: number;
  dropped: number;
}

export interface SseClientHooks {
  /** Events handed to the socket. */
  onSent(count: number): void;
  /** The stream is over (the client went away, or the hub ended it): release everything. */
  onClosed(client: SseClient): void;
}

/** What the hub passes through to the client's stream. */
export type SseClientStreamOptions = Pick<SseStreamOptions, "heartbeatMs" | "heartbeat" | "stillAuthorized" | "socket">;

export class SseClient {
  readonly connectedAt = Date.now();
  /** The stream to the client: the hub's frames leave through it as the socket takes them. */
  readonly out: SseStream;
  /** The last event seq queued for this client: no event is sent twice (replay and live meet here). */
  private lastSeq = 0;
  private missed: { from: number; to: number; count: number } | null = null;
  dropped = 0;

  constructor(
    readonly id: number,
    private readonly maxQueue: number,
    hooks: SseClientHooks,
    opts: SseClientStreamOptions = {},
  ) {
    this.out = new SseStream({
      ...opts,
      // Like the original's SSE writer: every FLUSH_MS or once half the queue waits, not one write per event.
      batch: { ms: FLUSH_MS, frames: Math.min(FLUSH_ITEMS, Math.ceil(maxQueue / 2)) },
      onSent: (count) => hooks.onSent(count),
      onClose: () => {
        this.missed = null;
        hooks.onClosed(this);
      },
    });
  }

  get stream(): ReadableStream<Uint8Array> {
    return this.out.readable;
  }

  get isClosed(): boolean {
    return !this.out.isOpen;
  }

  /** Events handed to the socket. */
  get sent(): number {
    return this.out.sent;
  }

  /** The replay (and anything else sent before live events): not subject to the queue limit. */
  preload(frame: Uint8Array, lastSeq?: number): void {
    if (!this.out.push(frame, lastSeq === undefined ? 0 : 1)) return;
    if (lastSeq !== undefined && lastSeq > this.lastSeq) this.lastSeq = lastSeq;
  }

  /** A live event; false if it was dropped because the queue is full. Never waits. */
  pushEvent(seq: number, frame: Uint8Array): boolean {
    if (this.isClosed || seq <= this.lastSeq) return true;
    this.lastSeq = seq;
    const room = this.maxQueue - this.out.queuedFrames;
    if (room < (this.missed ? 2 : 1)) {
      this.dropped += 1;
      this.missed = this.missed
        ? { ...this.missed, to: seq, count: this.missed.count + 1 }
        : { from: seq, to: seq, count: 1 };
      return false;
    }
    if (this.missed) {
      const { from, to, count } = this.missed;
      this.out.push(noticeFrame("gap", { from, to, dropped: count }));
      this.missed = null;
    }
    this.out.push(frame, 1);
    return true;
  }

  info(): SseClientInfo {
    const { id, connectedAt, sent, dropped } = this;
    return { id, connectedAt, queued: this.out.queuedFrames, sent, dropped };
  }

  /** Ends the stream: what is queued is still sent. */
  end(): void {
    this.out.end();
  }
}
