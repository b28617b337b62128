/**
 * Durations in Go `time.ParseDuration` syntax, because config values ("30m", "1h30m") keep the original's
 * format so existing settings and documentation carry over unchanged — one parser for the daemon's settings
 * and every plugin's `duration` settings (a stored one is valid: it was checked with this when written).
 * Every duration ends up in a Node timer, so parsing refuses what a timer cannot hold instead of letting it
 * fire at once later. Part of `@homeagent/sdk`, re-exported by index.ts.
 */
import { SdkError } from "./errors.js";

/** The longest delay a Node timer holds; a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu; Go accepts both
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

// "ms" must precede "m" and "s" so that "500ms" is not read as "500m" followed by a stray "s".
const PART = "(\\d+\\.?\\d*|\\.\\d+)(ns|us|µs|μs|ms|s|m|h)";
const WHOLE = new RegExp(`^([-+]?)((?:${PART})+)$`);
/** Longer input is never a sensible duration; refusing it early keeps the regex work bounded. */
const MAX_INPUT_LENGTH = 64;

/**
 * Parses "500ms", "30s", "1h30m", "1.5h", "0" into milliseconds; throws an SdkError (code "config_invalid")
 * on anything else,
 * including a magnitude a timer cannot hold (more than MAX_TIMER_MS).
 */
export function parseDuration(s: string): number {
  // Go accepts a bare zero without a unit, and nothing else without one.
  if (/^[-+]?0$/.test(s)) return 0;
  const whole = s.length <= MAX_INPUT_LENGTH ? WHOLE.exec(s) : null;
  if (!whole)
    throw new SdkError({ code: "config_invalid", message: `invalid duration ${shown(s)}: use e.g. 30s, 30m, 2h` });
  let ms = 0;
  for (const [, num, unit] of whole[2].matchAll(new RegExp(PART, "g"))) {
    ms += Number.parseFloat(num) * UNIT_MS[unit];
  }
  if (!Number.isFinite(ms) || ms > MAX_TIMER_MS) {
    throw new SdkError({
      code: "config_invalid",
      message: `duration ${shown(s)} is too long: a timer holds at most ${MAX_TIMER_MS} ms (about 24 days)`,
    });
  }
  return whole[1] === "-" ? -ms : ms;
}

function shown(s: string): string {
  return JSON.stringify(s.length > MAX_INPUT_LENGTH ? `${s.slice(0, MAX_INPUT_LENGTH)}…` : s);
}
