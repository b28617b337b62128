/**
 * The body of a streamed answer: text on the shared pull stream (../sse-stream.ts), which the server takes
 * from as fast as the client reads. The text a turn produces is bounded, but a client that stops reading
 * must not make the daemon hold it all: past `maxBufferedBytes` waiting, the stream is given up (and with
 * it the turn and the connection).
 */
import { SseStream, type SseStreamOptions } from "../sse-stream.js";

const encoder = new TextEncoder();

/** The heartbeat (stall rule, credentials re-check) and the connection, passed through to the stream. */
export type SseBodyOptions = Pick<SseStreamOptions, "heartbeatMs" | "stillAuthorized" | "socket">;

export class SseBody {
  /** The stream to the client. */
  readonly out: SseStream;

  /**
   * `onGone` is called once when the stream ends early: the client went away (the server cancelled the
   * body), stopped reading, was given up on, or its session ended.
   */
  constructor(maxBufferedBytes: number, onGone: (reason: Error) => void, opts: SseBodyOptions = {}) {
    this.out = new SseStream({
      ...opts,
      maxQueuedBytes: maxBufferedBytes,
      onClose: (close) => {
        if (close.reason !== "ended") onGone(close.error);
      },
    });
  }

  get readable(): ReadableStream<Uint8Array> {
    return this.out.readable;
  }

  /** The stream takes no more text: closed, given up, or the client went away. */
  get isClosed(): boolean {
    return !this.out.isOpen;
  }

  /** Queues text for the client; false once the stream is closed (or was just given up). */
  write(text: string): boolean {
    if (this.isClosed) return false;
    return text === "" || this.out.push(encoder.encode(text));
  }

  /** Ends the stream after what was written. */
  close(): void {
    this.out.end();
  }

  /** Drops what is queued, fails the stream and reports `reason` (the client is not reading). */
  giveUp(reason: Error): void {
    this.out.cut(reason);
  }
}
