/**
 * One SSE client: a bounded queue of frames between the event bus and the client's socket. The bus side
 * only ever appends (or drops, when the queue is full: counted, and the client is told the range it missed
 * once there is room again); the socket side takes frames when the HTTP server asks the stream for more,
 * which it does only while the socket keeps up. Nothing in between buffers, so a client that stops reading
 * costs at most its queue, and never slows the kernel or the other clients.
 */
import { noticeFrame } from "./sse-frame.js";

/** How long a frame may wait for others to share its socket write, and how many may wait at most. */
const FLUSH_MS = 16;
const FLUSH_ITEMS = 64;
/**
 * The most one socket write takes (a single larger frame goes alone). What does not fit stays queued as
 * the frames themselves, which the ring and the other clients share: a client that stops reading in the
 * middle of a long replay holds one write's copy, not a copy of everything it was to be sent.
 */
export const FLUSH_BYTES = 64 * 1024;

export interface SseClientInfo {
  id: number;
  connectedAt: number;
  queued: number;
  sent: number;
  dropped: number;
}

interface Item {
  frame: Uint8Array;
  /** An event (counted in `sent`), not a comment or notice. */
  counted: boolean;
}

export interface SseClientHooks {
  /** Events handed to the socket. */
  onSent(count: number): void;
  /** The stream is over (the client went away, or the hub ended it): release everything. */
  onClosed(client: SseClient): void;
}

export class SseClient {
  readonly connectedAt = Date.now();
  readonly stream: ReadableStream<Uint8Array>;
  private queue: Item[] = [];
  private wake: (() => void) | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  private closed = false;
  /** The last event seq queued for this client: no event is sent twice (replay and live meet here). */
  private lastSeq = 0;
  private missed: { from: number; to: number; count: number } | null = null;
  /** Whether the socket took anything since the last heartbeat tick, and how many ticks it did not. */
  private took = false;
  private idleTicks = 0;
  sent = 0;
  dropped = 0;

  constructor(
    readonly id: number,
    private readonly maxQueue: number,
    private readonly hooks: SseClientHooks,
    /** Cuts the connection at once (a stalled client), where the server gives a way to. */
    private readonly destroy?: () => void,
  ) {
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: (controller) => this.pull(controller),
        cancel: () => this.release(),
      },
      { highWaterMark: 0 },
    );
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The replay (and anything else sent before live events): not subject to the queue limit. */
  preload(frame: Uint8Array, lastSeq?: number): void {
    if (this.closed) return;
    this.queue.push({ frame, counted: lastSeq !== undefined });
    if (lastSeq !== undefined && lastSeq > this.lastSeq) this.lastSeq = lastSeq;
  }

  /** A live event; false if it was dropped because the queue is full. Never waits. */
  pushEvent(seq: number, frame: Uint8Array): boolean {
    if (this.closed || seq <= this.lastSeq) return true;
    this.lastSeq = seq;
    const room = this.maxQueue - this.queue.length;
    if (room < (this.missed ? 2 : 1)) {
      this.dropped += 1;
      this.missed = this.missed
        ? { ...this.missed, to: seq, count: this.missed.count + 1 }
        : { from: seq, to: seq, count: 1 };
      return false;
    }
    if (this.missed) {
      const { from, to, count } = this.missed;
      this.queue.push({ frame: noticeFrame("gap", { from, to, dropped: count }), counted: false });
      this.missed = null;
    }
    this.queue.push({ frame, counted: true });
    this.scheduleWake();
    return true;
  }

  /** A heartbeat comment, only when nothing else is waiting to go (then it is not needed). */
  pushIdle(frame: Uint8Array): void {
    if (this.closed || this.queue.length > 0) return;
    this.queue.push({ frame, counted: false });
    this.scheduleWake();
  }

  /**
   * Frames are handed to the socket in batches, every FLUSH_MS or as soon as half the queue (at most
   * FLUSH_ITEMS) is waiting, not one write per event: with many clients the writes are most of what
   * serving them costs, and a dashboard redraws no faster anyway. Like the original's SSE writer.
   */
  private scheduleWake(): void {
    if (!this.wake) return;
    if (this.queue.length >= Math.min(FLUSH_ITEMS, Math.ceil(this.maxQueue / 2))) {
      this.wakeNow();
      return;
    }
    this.flushTimer ??= setTimeout(() => this.wakeNow(), FLUSH_MS);
  }

  private wakeNow(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.wake?.();
  }

  /**
   * Called every heartbeat: a client that has had frames waiting for two whole intervals without taking
   * any is not reading (a dead peer, a stuck tab): its connection is cut so its slot is freed. A live one
   * reconnects and gets what it missed through Last-Event-ID.
   */
  tick(): void {
    if (this.queue.length === 0 || this.took) {
      this.idleTicks = 0;
    } else if (++this.idleTicks >= 2) {
      this.end(true);
      return;
    }
    this.took = false;
  }

  info(): SseClientInfo {
    const { id, connectedAt, sent, dropped } = this;
    return { id, connectedAt, queued: this.queue.length, sent, dropped };
  }

  /** Ends the stream: gracefully (what is queued is still sent) or, with `cut`, at once. */
  end(cut = false): void {
    if (this.closed) return;
    if (cut && this.destroy) {
      this.destroy();
      this.release();
      return;
    }
    const controller = this.controller;
    const rest = this.queue.map((item) => item.frame);
    this.release();
    try {
      // Frame by frame: the frames are shared with the ring and the other clients, a joined copy would not be.
      if (!cut) for (const frame of rest) controller?.enqueue(frame);
      if (cut) controller?.error(new Error("SSE client stopped reading"));
      else controller?.close();
    } catch {
      // The stream was already cancelled by the server.
    }
  }

  private pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> | undefined {
    if (this.closed || this.flush(controller)) return undefined;
    return new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = null;
        this.flush(controller);
        resolve();
      };
    });
  }

  /** Hands what is queued (up to FLUSH_BYTES) to the stream as one chunk; false when there was nothing. */
  private flush(controller: ReadableStreamDefaultController<Uint8Array>): boolean {
    if (this.closed || this.queue.length === 0) return false;
    let count = 0;
    let bytes = 0;
    while (count < this.queue.length && (count === 0 || bytes + this.queue[count].frame.byteLength <= FLUSH_BYTES)) {
      bytes += this.queue[count].frame.byteLength;
      count += 1;
    }
    const items = this.queue.splice(0, count);
    this.took = true;
    const events = items.reduce((n, item) => n + (item.counted ? 1 : 0), 0);
    this.sent += events;
    if (events > 0) this.hooks.onSent(events);
    controller.enqueue(concat(items.map((item) => item.frame)));
    return true;
  }

  /** Everything this client holds is let go at once: queue, waiting pull, its place in the hub. */
  private release(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.missed = null;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const wake = this.wake;
    this.wake = null;
    this.controller = null;
    this.hooks.onClosed(this);
    // A pull still waiting must settle, or the stream would hold its promise forever.
    wake?.();
  }
}

function concat(frames: Uint8Array[]): Uint8Array {
  if (frames.length === 1) return frames[0];
  return Buffer.concat(frames);
}
