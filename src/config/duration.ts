/**
 * Durations in Go `time.ParseDuration` syntax, because config values ("30m", "1h30m") keep the original's
 * format so existing settings and documentation carry over unchanged.
 */

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

/** Parses "500ms", "30s", "1h30m", "1.5h", "0" into milliseconds; throws on anything else. */
export function parseDuration(s: string): number {
  // Go accepts a bare zero without a unit, and nothing else without one.
  if (/^[-+]?0$/.test(s)) return 0;
  const whole = WHOLE.exec(s);
  if (!whole) throw new Error(`invalid duration ${JSON.stringify(s)}: use e.g. 30s, 30m, 2h`);
  let ms = 0;
  for (const [, num, unit] of whole[2].matchAll(new RegExp(PART, "g"))) {
    ms += Number.parseFloat(num) * UNIT_MS[unit];
  }
  return whole[1] === "-" ? -ms : ms;
}
