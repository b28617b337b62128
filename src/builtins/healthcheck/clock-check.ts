/**
 * Is the wall clock sane? Memory dates every event by it: a clock set back makes new events older than
 * stored ones (the timeline and "yesterday" go wrong), and a jump shows as the wall clock running apart from
 * the monotonic one since the plugin started (a sleeping machine does that too, so that only warns).
 */
import { type Check, fail, ok, warn } from "./check.js";

/** Drift of the wall clock from the monotonic one that warns. */
const DRIFT_WARN_MS = 60_000;
/** How far behind the newest stored event (or the build) the clock may be: clocks differ a little. */
const BEHIND_FAIL_MS = 5 * 60_000;

export interface ClockReadings {
  /** Date.now() and performance.now() when the plugin started, and now. */
  wallAtStart: number;
  monoAtStart: number;
  wallNow: number;
  monoNow: number;
  /** When this HomeAgent was built or installed (Unix ms), when known. */
  builtAt?: number;
  /** The newest event memory holds (Unix ms), when any. */
  newestEvent?: number;
}

export function clockCheck(r: ClockReadings): Check {
  const now = new Date(r.wallNow).toISOString();
  const fix = "set the system clock right (enable NTP: timedatectl set-ntp true)";
  if (r.newestEvent !== undefined && r.wallNow < r.newestEvent - BEHIND_FAIL_MS) {
    return fail(
      "clock",
      `the clock (${now}) is before the newest event in memory (${new Date(r.newestEvent).toISOString()})`,
      fix,
    );
  }
  if (r.builtAt !== undefined && r.wallNow < r.builtAt - BEHIND_FAIL_MS) {
    return fail(
      "clock",
      `the clock (${now}) is before this HomeAgent was built (${new Date(r.builtAt).toISOString()})`,
      fix,
    );
  }
  const drift = r.wallNow - r.wallAtStart - (r.monoNow - r.monoAtStart);
  if (Math.abs(drift) > DRIFT_WARN_MS) {
    return warn(
      "clock",
      `the wall clock moved ${Math.round(drift / 1000)} s apart from the monotonic clock since the plugin started (the clock was changed, or the machine slept)`,
      "if the machine did not sleep: enable NTP (timedatectl set-ntp true)",
    );
  }
  return ok("clock", `${now}; ${Math.round(drift)} ms apart from the monotonic clock since start`);
}
