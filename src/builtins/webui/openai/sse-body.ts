/**
 * The body of a streamed answer: a ReadableStream the server drains as fast as the client reads. The text
 * a turn produces is bounded, but a client that stops reading must not make the daemon hold it all: past
 * `maxBufferedBytes` not yet taken by the connection, the stream is given up (and the turn cancelled).
 */

const encoder = new TextEncoder();

export class SseBody {
  readonly readable: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private open = true;

  /**
   * `onGone` is called once when the stream ends early: the client went away (the server cancelled the
   * body) or stopped reading.
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
        cancel: () => this.gone(new Error("the HTTP client disconnected")),
      },
      { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
    );
  }

  get closed(): boolean {
    return !this.open;
  }

  /** Queues text for the client; false once the stream is closed. */
  write(text: string): boolean {
    if (!this.open) return false;
    if (text === "") return true;
    this.controller.enqueue(encoder.encode(text));
    if ((this.controller.desiredSize ?? 0) < -this.maxBufferedBytes) {
      const reason = new Error(
        `the HTTP client stopped reading: over ${this.maxBufferedBytes} bytes of the stream were waiting for it`,
      );
      this.open = false;
      this.controller.error(reason);
      this.onGone(reason);
      return false;
    }
    return true;
  }

  /** Ends the stream after what was written. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    this.controller.close();
  }

  private gone(reason: Error): void {
    if (!this.open) return;
    this.open = false;
    this.onGone(reason);
  }
}
