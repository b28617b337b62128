/**
 * How a secret may be shown anywhere (settings lists, logs, status, API responses): at most its last four
 * characters, and nothing at all when it is short enough that four characters would give most of it away.
 */
const SHOWN = 4;
const MIN_LENGTH_TO_SHOW = 12;
/** What maskSecret returns: "****", or "****" and the last SHOWN characters. */
const MASK_SHAPE = new RegExp(`^\\*{4}.{0,${SHOWN}}$`, "su");

export function maskSecret(value: string): string {
  if (!value) return "";
  if (value.length < MIN_LENGTH_TO_SHOW) return "****";
  return `****${value.slice(-SHOWN)}`;
}

/** Whether `value` has the shape maskSecret gives ("****" and at most four more characters). */
export function looksMasked(value: string): boolean {
  return MASK_SHAPE.test(value);
}

/** Replaces every occurrence of `secret` in `text` (error bodies that echo a key back). */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret ? text.replaceAll(secret, "***") : text;
}
