/**
 * Wall-clock time and timers behind one small interface, so code that waits minutes (heartbeat loops, a
 * crashed plugin's restart backoff) can be tested by moving time by hand (test/fixtures/fake-clock.ts).
 */

/** Wall-clock time and timers, injectable so tests move time by hand. */
export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
