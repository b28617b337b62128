/**
 * The first-byte deadline of one request, folded into the signal fetch gets. `settle()` stops the clock
 * (safe to call more than once); `watch()` stops it when a stream body delivers its first bytes.
 */
export class FirstByteWatch {
  readonly signal: AbortSignal | undefined;
  timedOut = false;
  private timer?: NodeJS.Timeout;

  constructor(
    readonly timeoutMs: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    if (timeoutMs <= 0) {
      this.signal = caller;
      return;
    }
    const own = new AbortController();
    this.timer = setTimeout(() => {
      this.timedOut = true;
      own.abort();
    }, timeoutMs);
    this.signal = caller ? AbortSignal.any([caller, own.signal]) : own.signal;
  }

  get callerAborted(): boolean {
    return this.caller?.aborted === true;
  }

  settle(): void {
    clearTimeout(this.timer);
  }

  watch(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    return body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (bytes, controller) => {
          this.settle();
          controller.enqueue(bytes);
        },
      }),
    );
  }
}
