/**
 * Login attempts per client, as a token bucket: a burst of a few tries, then one more every so often, so
 * guessing the admin password over the network takes years while a person who mistyped twice does not
 * notice. A client is its address, except that an IPv6 client is its /64: every IPv6 customer gets at least
 * that many addresses, and one bucket per address would give each 2^64 bursts. The table of clients is
 * bounded; buckets that have refilled mean nothing and go first, and when none has, a new client waits
 * instead of pushing out an old one (which would let a client with many addresses reset its own buckets).
 */
import { isIPv4, isIPv6 } from "node:net";
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

/**
 * `ok`, or how many whole seconds to wait before the next attempt can succeed; `full` when the wait is for
 * room in the table of clients rather than for this client's own bucket.
 */
export type Admission = { ok: true } | { ok: false; retryAfterS: number; full?: true };

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

  /** Takes one attempt for the client at `address`, or says how long to wait. */
  take(address: string): Admission {
    const now = this.clock.now();
    const key = clientKey(address);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.max) this.dropRefilled(now);
      if (this.buckets.size >= this.max) return { ok: false, retryAfterS: this.untilRoom(now), full: true };
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = this.tokensAt(bucket, now);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterS: this.secondsFor(1 - bucket.tokens) };
  }

  get size(): number {
    return this.buckets.size;
  }

  private tokensAt(bucket: Bucket, now: number): number {
    return Math.min(this.burst, bucket.tokens + (now - bucket.at) * this.perMs);
  }

  private secondsFor(tokens: number): number {
    return Math.max(1, Math.ceil(tokens / this.perMs / 1000));
  }

  /** Full buckets are the same as none. */
  private dropRefilled(now: number): void {
    for (const [key, b] of this.buckets) if (this.tokensAt(b, now) >= this.burst) this.buckets.delete(key);
  }

  /** Seconds until the first bucket has refilled, and so can make room. */
  private untilRoom(now: number): number {
    let least = this.burst;
    for (const b of this.buckets.values()) least = Math.min(least, this.burst - this.tokensAt(b, now));
    return this.secondsFor(least);
  }
}

/**
 * The client an address stands for: an IPv4 address (also when it arrives IPv4-mapped on a dual-stack
 * socket, `::ffff:a.b.c.d`), or the /64 of an IPv6 address (zone dropped). Anything else is kept as given.
 */
export function clientKey(address: string): string {
  const bare = address.replace(/%.*$/, "").toLowerCase();
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join(".");
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address ("::" expanded, a dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const tail = text.slice(text.lastIndexOf(":") + 1);
  if (isIPv4(tail)) {
    const [a, b, c, d] = tail.split(".").map(Number);
    text = `${text.slice(0, text.length - tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = rest === undefined ? [] : rest ? rest.split(":") : [];
  const zeros = rest === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((g) => Number.parseInt(g, 16));
}
