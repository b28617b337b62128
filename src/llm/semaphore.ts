/**
 * A counting semaphore whose waiters can give up: `max_concurrent` of an LLM source. Waiters are served in
 * arrival order; an aborted waiter leaves the queue without taking a slot.
 */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];

  /** `limit` ≤ 0 means unlimited. */
  constructor(private readonly limit: number) {}

  get inFlight(): number {
    return this.active;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.limit > 0 && this.active >= this.limit) await this.wait(signal);
    else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      // The slot passes straight to the next waiter, so a newcomer cannot jump the queue.
      if (next) next();
      else this.active--;
    };
  }

  private wait(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason);
      };
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.waiters.push(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
