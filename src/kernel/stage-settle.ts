/**
 * Waiting for a stage run's handlers: all start together, and the stage waits until each has settled, its
 * deadline has passed or the turn stopped, whichever comes first. The deadline runs on timers that can be
 * injected, so tests move time by hand instead of waiting for it.
 */
import type { StagePatch } from "@homeagent/sdk/protocol";
import type { Clock } from "../util/clock.js";

export type StageTimers = Pick<Clock, "setTimer" | "clearTimer">;

/** Real timers that keep the process alive while a stage waits (systemClock's do not). */
export const realTimers: StageTimers = {
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export type Settled = { ok: true; patch: StagePatch } | { ok: false; err: unknown };

/**
 * Starts every handler and waits until all have settled, `timeoutMs` has passed, or `stop` fired. The
 * result has one entry per handler; a hole means it had not settled by then.
 */
export async function settleWithin(
  handlers: Array<() => Promise<StagePatch>>,
  timeoutMs: number,
  stop: AbortSignal | undefined,
  timers: StageTimers,
): Promise<Array<Settled | undefined>> {
  const settled: Array<Settled | undefined> = new Array(handlers.length);
  const all = Promise.all(
    handlers.map(async (handler, i) => {
      try {
        settled[i] = { ok: true, patch: await handler() };
      } catch (err) {
        settled[i] = { ok: false, err };
      }
    }),
  );
  let timer: unknown;
  let onStop: (() => void) | undefined;
  const cutOff = new Promise<void>((resolve) => {
    timer = timers.setTimer(resolve, timeoutMs);
    onStop = resolve;
    stop?.addEventListener("abort", onStop, { once: true });
  });
  try {
    await Promise.race([all, cutOff]);
  } finally {
    timers.clearTimer(timer);
    if (onStop) stop?.removeEventListener("abort", onStop);
  }
  return [...settled];
}
