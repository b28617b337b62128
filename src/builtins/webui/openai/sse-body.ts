/**
 * The body of a streamed answer: a queue the server takes from as fast as the client reads (nothing is
 * handed over before the socket asks for it). The text a turn produces is bounded, but a client that
 * stops reading must not make the daemon hold it all: past `maxBufferedBytes` waiting, the stream is given
 * up (and with it the turn and the connection). `taken` and `backlog` let a watchdog see a stalled client.
 */

const encoder = new TextEncoder();

/** The most one socket write takes, so a stalled client holds at most one such chunk outside the queue. */
const MAX_CHUNK_BYTES = 64 * 1024;

export class SseBody {
  readonly readable: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private queue: Uint8Array[] = [];
  private queued = 0;
  private handed = 0;
  /** Takes writes; false once closed or given up. */
  private open = true;
  /** The stream is over for the server: closed after the last chunk, given up, or cancelled. */
  private over = false;
  private wake: (() => void) | null = null;

  /**
   * `onGone` is called once when the stream ends early: the client went away (the server cancelled the
   * body), stopped reading, or was given up on.
   */
  constructor(
    private readonly maxBufferedBytes: number,
    private readonly onGone: (reason: Error) => void,
  ) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: (controller) => this.pull(controller),
        cancel: () => this.end(new Error("the HTTP client disconnected")),
      },
      { highWaterMark: 0 },
    );
  }

  get closed(): boolean {
    return !this.open;
  }

  /** Bytes written and not yet taken by the server. */
  get backlog(): number {
    return this.queued;
  }

  /** Bytes the server has taken so far. */
  get taken(): number {
    return this.handed;
  }

  /** Queues text for the client; false once the stream is closed (or was just given up). */
  write(text: string): boolean {
    if (!this.open) return false;
    if (text === "") return true;
    const bytes = encoder.encode(text);
    this.queue.push(bytes);
    this.queued += bytes.byteLength;
    if (this.queued > this.maxBufferedBytes) {
      this.giveUp(
        new Error(
          `the HTTP client stopped reading: over ${this.maxBufferedBytes} bytes of the stream were waiting for it`,
        ),
      );
      return false;
    }
    this.wake?.();
    return true;
  }

  /** Ends the stream after what was written. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    if (this.wake) this.wake();
    else if (this.queue.length === 0) this.finish();
  }

  /** Drops what is queued, fails the stream and reports `reason` (the client is not reading). */
  giveUp(reason: Error): void {
    if (this.over) return;
    this.end(reason);
    try {
      this.controller.error(reason);
    } catch {
      // Already closed by the server.
    }
  }

  private pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> | undefined {
    if (this.hand(controller)) return undefined;
    return new Promise<void>((resolve) => {
      this.wake = () => {
        this.wake = null;
        this.hand(controller);
        resolve();
      };
    });
  }

  /** Gives the server the next chunk (or the end); false when there is nothing to give yet. */
  private hand(controller: ReadableStreamDefaultController<Uint8Array>): boolean {
    if (this.over) return true;
    if (this.queue.length === 0) {
      if (this.open) return false;
      this.finish();
      return true;
    }
    let count = 0;
    let size = 0;
    while (count < this.queue.length && (count === 0 || size + this.queue[count].byteLength <= MAX_CHUNK_BYTES)) {
      size += this.queue[count].byteLength;
      count += 1;
    }
    const chunks = this.queue.splice(0, count);
    this.queued -= size;
    this.handed += size;
    controller.enqueue(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    if (!this.open && this.queue.length === 0) this.finish();
    return true;
  }

  private finish(): void {
    if (this.over) return;
    this.over = true;
    this.controller.close();
  }

  /** The stream ended early: let go of the queue and report it once. */
  private end(reason: Error): void {
    if (this.over) return;
    this.over = true;
    this.open = false;
    this.queue = [];
    this.queued = 0;
    const wake = this.wake;
    this.wake = null;
    wake?.();
    this.onGone(reason);
  }
}
