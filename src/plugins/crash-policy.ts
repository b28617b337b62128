/**
 * When a crashed plugin is started again: at once the first time, then after a growing pause; the third
 * crash within five minutes means it would only crash again, so it stays down (unhealthy) until someone
 * reloads it by hand. The clock is injectable so the policy can be tested without waiting minutes.
 */
import type { Clock } from "../util/clock.js";

export const CRASH_WINDOW_MS = 5 * 60_000;
export const MAX_CRASHES = 3;
/** Pause before the n-th restart within the window: (n − 1) × this. */
export const RESTART_STEP_MS = 1000;

export type CrashVerdict = { restartInMs: number } | { unhealthy: true };

/** The crashes of one plugin within the window. */
export class CrashHistory {
  private times: number[] = [];

  constructor(private readonly clock: Clock) {}

  /** Crashes within the window, this moment included. */
  count(): number {
    const since = this.clock.now() - CRASH_WINDOW_MS;
    this.times = this.times.filter((t) => t > since);
    return this.times.length;
  }

  /** Records one crash and says what to do about it. */
  record(): CrashVerdict {
    this.times.push(this.clock.now());
    const n = this.count();
    return n >= MAX_CRASHES ? { unhealthy: true } : { restartInMs: (n - 1) * RESTART_STEP_MS };
  }

  /** A reload by hand forgives the past. */
  reset(): void {
    this.times = [];
  }
}
