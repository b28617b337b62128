/**
 * Login attempts per client address, as a token bucket: a burst of a few tries, then one more every so
 * often, so guessing the admin password over the network takes years while a person who mistyped twice
 * does not notice. The table of addresses is bounded; buckets that have refilled mean nothing and go first.
 */
import { type Clock, systemClock } from "../util/clock.js";

export const LOGINS_PER_MINUTE = 5;
export const LOGIN_BURST = 5;
export const MAX_ADDRESSES = 4096;

export interface LoginLimitOptions {
  clock?: Clock;
  perMinute?: number;
  burst?: number;
  maxAddresses?: number;
}

/** `ok`, or how many whole seconds to wait before the next attempt can succeed. */
export type Admission = { ok: true } | { ok: false; retryAfterS: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class LoginLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly clock: Clock;
  private readonly perMs: number;
  private readonly burst: number;
  private readonly max: number;

  constructor(opts: LoginLimitOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    this.perMs = (opts.perMinute ?? LOGINS_PER_MINUTE) / 60_000;
    this.burst = opts.burst ?? LOGIN_BURST;
    this.max = opts.maxAddresses ?? MAX_ADDRESSES;
  }

  /** Takes one attempt for `address`, or says how long to wait. */
  take(address: string): Admission {
    const now = this.clock.now();
    const bucket = this.buckets.get(address) ?? this.fresh(now);
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    // Re-inserted on every attempt, so map order is least recently tried first.
    this.buckets.delete(address);
    this.buckets.set(address, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000)) };
  }

  get size(): number {
    return this.buckets.size;
  }

  private fresh(now: number): Bucket {
    if (this.buckets.size >= this.max) this.makeRoom(now);
    return { tokens: this.burst, at: now };
  }

  /** Full buckets are the same as none; when none is full, the least recently tried address goes. */
  private makeRoom(now: number): void {
    for (const [address, b] of this.buckets) {
      if (b.tokens + (now - b.at) * this.perMs >= this.burst) this.buckets.delete(address);
    }
    if (this.buckets.size < this.max) return;
    const oldest = this.buckets.keys().next().value;
    if (oldest !== undefined) this.buckets.delete(oldest);
  }
}
