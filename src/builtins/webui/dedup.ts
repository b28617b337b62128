/**
 * `client_msg_id` de-duplication: a browser that retries a message (a flaky network, a double click) must
 * not make the agent answer it twice. A bounded map from key to the first request's flight, oldest evicted
 * first — but never one still in flight (those are bounded by the kernel's queue), so a flood of other
 * ids cannot make a retry of a running message start it again. The same id with a different message is a
 * client bug and is refused rather than answered with the other message's reply.
 */
import { ApiError } from "./context.js";

export const DEDUP_ENTRIES = 256;

interface Entry<T> {
  message: string;
  value: T;
}

export class Dedup<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly max = DEDUP_ENTRIES,
    /** Values that must stay (a flight still running); the bound applies to the others. */
    private readonly pinned: (value: T) => boolean = () => false,
  ) {}

  /** The value held for `key`; 409 when it was given for another message. */
  get(key: string, message: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.message !== message) {
      throw new ApiError(
        409,
        "client_msg_id_conflict",
        "this client_msg_id was already used for another message; give every message its own id",
      );
    }
    return entry.value;
  }

  set(key: string, message: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, { message, value });
    if (this.entries.size <= this.max) return;
    let over = this.entries.size - this.max;
    for (const [k, entry] of this.entries) {
      if (over === 0) break;
      if (this.pinned(entry.value)) continue;
      this.entries.delete(k);
      over -= 1;
    }
  }

  /** Forgets `key` if it still holds `value` (a failed request may be retried under the same id). */
  delete(key: string, value: T): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }

  /** The unpinned entries `match` accepts: counted, and removed when `remove` (forgetting). */
  drop(match: (message: string, value: T) => boolean, remove: boolean): number {
    let n = 0;
    for (const [key, entry] of this.entries) {
      if (this.pinned(entry.value) || !match(entry.message, entry.value)) continue;
      n += 1;
      if (remove) this.entries.delete(key);
    }
    return n;
  }

  get size(): number {
    return this.entries.size;
  }
}
