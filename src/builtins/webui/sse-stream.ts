/**
 * The one pull-driven body behind both SSE answers of the web UI (each event-stream client, and a streaming
 * completion): a queue of frames the HTTP server takes from only when the socket asks for more, so nothing
 * is copied out faster than the client reads and a client that stops reading costs at most its queue.
 * Frames leave in writes of at most FLUSH_BYTES, optionally batched. A heartbeat applies the stall rule (a
 * client that takes nothing for two heartbeats while bytes wait for it is cut), re-checks the credentials
 * the stream was opened with, and sends a comment when idle. What goes into the queue, and what a full one
 * means, is the owner's business; this file decides how bytes leave, and when and why a stream is over.
 */
import { SdkError } from "@homeagent/sdk";

/**
 * The most one socket write takes (a single larger frame goes alone). What does not fit stays queued as the
 * frames themselves, which the replay ring and other clients may share: a client that stops reading holds
 * one write's copy, not a copy of everything it was to be sent.
 */
export const FLUSH_BYTES = 64 * 1024;

/**
 * Why a stream took its last frame: its owner ended it, the client went away, the client stopped reading
 * (stalled: took nothing for two heartbeats; overflow: more than the byte limit waited), the credentials it
 * was opened with ended, or its owner cut it.
 */
export type CloseReason = "ended" | "disconnected" | "stalled" | "overflow" | "revoked" | "cut";

/** How a stream closed: its owner ended it, or something else did (then `error` says what, in words). */
export type StreamClose = { reason: "ended" } | { reason: Exclude<CloseReason, "ended">; error: Error };

/** The connection under the stream (a node ServerResponse fits). */
export interface SseSocket {
  /** Bytes taken from the stream that still wait in the socket for the client. */
  readonly writableLength: number;
  readonly destroyed: boolean;
  destroy(): void;
}

export interface SseStreamOptions {
  /** Frames wait up to `ms` to share a write, unless `frames` are waiting; without it each push wakes the socket. */
  batch?: { ms: number; frames: number };
  /** More bytes than this waiting for the client cuts the stream ("overflow"); default no byte limit. */
  maxQueuedBytes?: number;
  /** The heartbeat's interval; without it there is no heartbeat (no stall rule, no re-check, no comment). */
  heartbeatMs?: number;
  /** Sent at a heartbeat when nothing else waits. */
  heartbeat?: Uint8Array;
  /** Asked at every heartbeat: false once the credentials are gone, which ends the stream ("revoked"). */
  stillAuthorized?: () => boolean;
  /** Counted as waiting by the stall rule, and destroyed when the stream is cut. */
  socket?: SseSocket;
  /** Events (as `push` counted them) handed to the socket. */
  onSent?: (events: number) => void;
  /** Called once, when the stream stops taking frames. */
  onClose?: (close: StreamClose) => void;
}

interface Item {
  frame: Uint8Array;
  /** How many events the frame holds (0 for comments and notices). */
  events: number;
}

export class SseStream {
  readonly readable: ReadableStream<Uint8Array>;
  /** Settles when the stream stops taking frames, with the reason. */
  readonly closed: Promise<StreamClose>;
  private settle!: (close: StreamClose) => void;
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  private queue: Item[] = [];
  private queuedBytes = 0;
  private takenBytes = 0;
  private sentEvents = 0;
  private wake: (() => void) | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  /** Takes frames: not yet ended, revoked, cut or cancelled. */
  private open = true;
  /** The readable is finished (closed, errored or cancelled); a socket may still hold its last bytes. */
  private over = false;
  /** The stall rule's memory: bytes the client had received at the last heartbeat, and beats since it took any. */
  private lastSent = 0;
  private idleBeats = 0;

  constructor(private readonly opts: SseStreamOptions = {}) {
    this.closed = new Promise((resolve) => {
      this.settle = resolve;
    });
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.pull(),
        cancel: () => this.disconnected(),
      },
      { highWaterMark: 0 },
    );
  }

  get isOpen(): boolean {
    return this.open;
  }

  get queuedFrames(): number {
    return this.queue.length;
  }

  /** Bytes queued and not yet taken by the server. */
  get backlog(): number {
    return this.queuedBytes;
  }

  /** Bytes the server has taken so far. */
  get taken(): number {
    return this.takenBytes;
  }

  /** Events handed to the socket so far. */
  get sent(): number {
    return this.sentEvents;
  }

  /** Queues a frame holding `events` events; false once the stream takes no more (or the frame overflowed it). */
  push(frame: Uint8Array, events = 0): boolean {
    if (!this.open) return false;
    this.queue.push({ frame, events });
    this.queuedBytes += frame.byteLength;
    const max = this.opts.maxQueuedBytes;
    if (max !== undefined && this.queuedBytes > max) {
      this.cut(
        new SdkError({
          code: "sse_overflow",
          message: `the HTTP client stopped reading: over ${max} bytes of the stream were waiting for it`,
        }),
        "overflow",
      );
      return false;
    }
    this.scheduleWake();
    return true;
  }

  /** Queues a frame only when nothing else waits (a heartbeat is not needed then). */
  pushIfIdle(frame: Uint8Array): void {
    if (this.open && this.queue.length === 0) this.push(frame);
  }

  /** No more frames: what is queued still goes as the client reads, then the stream closes. */
  end(): void {
    if (!this.open) return;
    this.stop({ reason: "ended" });
    if (this.wake) this.wakeNow();
    else if (this.queue.length === 0) this.finish();
  }

  /** The credentials are gone: nothing more is sent, not even what is queued; the stream closes cleanly. */
  revoke(): void {
    if (!this.open) return;
    this.drop();
    this.stop({
      reason: "revoked",
      error: new SdkError({
        code: "sse_revoked",
        message: "the session the stream was opened with has ended (logout, expiry or a credentials reset)",
      }),
    });
    this.finish();
    this.settleWake();
  }

  /**
   * Ends the stream at once, as a failure: the queue is dropped and the socket destroyed (which ends the
   * answer; the server would print an errored body to stderr), or without a socket the reader errored.
   * Also after the stream has ended, while its last bytes still wait in the socket.
   */
  cut(error: Error, reason: Exclude<CloseReason, "ended"> = "cut"): void {
    this.drop();
    this.stop({ reason, error });
    const wasOver = this.over;
    this.over = true;
    this.stopHeartbeat();
    if (this.opts.socket) this.opts.socket.destroy();
    else if (!wasOver) this.controller?.error(error);
    this.settleWake();
  }

  /**
   * Frames go to the socket in batches, every `batch.ms` or once `batch.frames` wait, not one write per
   * frame: with many clients the writes are most of what serving them costs.
   */
  private scheduleWake(): void {
    if (!this.wake) return;
    const batch = this.opts.batch;
    if (!batch || this.queue.length >= batch.frames) {
      this.wakeNow();
      return;
    }
    this.flushTimer ??= setTimeout(() => this.wakeNow(), batch.ms);
  }

  private wakeNow(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    this.wake?.();
  }

  private pull(): Promise<void> | undefined {
    this.startHeartbeat();
    if (this.hand()) return undefined;
    return new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = null;
        this.hand();
        resolve();
      };
    });
  }

  /** Gives the server the next write (or the end); false when there is nothing to give yet. */
  private hand(): boolean {
    if (this.over) return true;
    if (this.queue.length === 0) {
      if (this.open) return false;
      this.finish();
      return true;
    }
    let count = 0;
    let bytes = 0;
    while (count < this.queue.length && (count === 0 || bytes + this.queue[count].frame.byteLength <= FLUSH_BYTES)) {
      bytes += this.queue[count].frame.byteLength;
      count += 1;
    }
    const items = this.queue.splice(0, count);
    this.queuedBytes -= bytes;
    this.takenBytes += bytes;
    const events = items.reduce((n, item) => n + item.events, 0);
    this.sentEvents += events;
    if (events > 0) this.opts.onSent?.(events);
    this.controller?.enqueue(items.length === 1 ? items[0].frame : Buffer.concat(items.map((item) => item.frame)));
    if (!this.open && this.queue.length === 0) this.finish();
    return true;
  }

  /** A heartbeat runs from the first pull (a stream never sent holds no timer) until the socket is done. */
  private startHeartbeat(): void {
    const ms = this.opts.heartbeatMs;
    if (this.heartbeatTimer || ms === undefined || this.over) return;
    this.heartbeatTimer = setInterval(() => this.beat(ms), ms);
    this.heartbeatTimer.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  private beat(ms: number): void {
    const socket = this.opts.socket;
    const inSocket = socket?.writableLength ?? 0;
    const waiting = this.queuedBytes + inSocket;
    if (this.over && (waiting === 0 || !socket || socket.destroyed)) {
      this.stopHeartbeat();
      return;
    }
    if (this.open && this.opts.stillAuthorized?.() === false) {
      this.revoke();
      return;
    }
    const sent = this.takenBytes - inSocket;
    if (sent !== this.lastSent || waiting === 0) {
      this.lastSent = sent;
      this.idleBeats = 0;
    } else if (++this.idleBeats >= 2) {
      // A dead peer or a stuck tab: cut, so its slot is freed (a live one reconnects and catches up).
      this.cut(
        new SdkError({
          code: "sse_stalled",
          message: `the HTTP client stopped reading: it took nothing of the stream for ${(2 * ms) / 1000} s`,
        }),
        "stalled",
      );
      return;
    }
    if (this.opts.heartbeat) this.pushIfIdle(this.opts.heartbeat);
  }

  private finish(): void {
    if (this.over) return;
    this.over = true;
    if (!this.opts.socket) this.stopHeartbeat();
    this.controller?.close();
  }

  private disconnected(): void {
    this.drop();
    this.stop({
      reason: "disconnected",
      error: new SdkError({ code: "sse_disconnected", message: "the HTTP client disconnected" }),
    });
    this.over = true;
    this.stopHeartbeat();
    this.settleWake();
  }

  private drop(): void {
    this.queue = [];
    this.queuedBytes = 0;
  }

  /** Takes no more frames; the owner is told why, once. */
  private stop(close: StreamClose): void {
    if (!this.open) return;
    this.open = false;
    this.opts.onClose?.(close);
    this.settle(close);
  }

  /** A pull still waiting must settle, or the stream would hold its promise forever. */
  private settleWake(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
