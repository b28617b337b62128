/**
 * One incoming request as its handler sees it: its id and how it learns that it was cancelled (the caller's
 * `$/cancel`, or the peer closing). Kept apart from RpcPeer because handlers (the stdio runtime's) take
 * only this.
 */
export interface RequestContext {
  id: number | string;
  /** Aborted when the caller sends `$/cancel` for this request or the peer closes. */
  readonly signal: AbortSignal;
  /** Calls `fn` once when the request is cancelled (at once if it already was); cheaper than `signal`. */
  onCancel(fn: (reason: unknown) => void): void;
}

/**
 * One request being served. Its signal is made on first read: an AbortSignal costs ~9 µs in Node 20,
 * more than the rest of a small call, and most handlers never look at it.
 */
export class Serving implements RequestContext {
  private controller: AbortController | undefined;
  private hooks: Array<(reason: unknown) => void> | undefined;
  private cancelled = false;
  private reason: unknown;

  constructor(readonly id: number | string) {}

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  onCancel(fn: (reason: unknown) => void): void {
    if (this.cancelled) {
      fn(this.reason);
      return;
    }
    this.hooks ??= [];
    this.hooks.push(fn);
  }

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.controller?.abort(reason);
    for (const fn of this.hooks ?? []) fn(reason);
  }
}
