/** URL helpers shared by every HTTP client of the daemon. */

/** `base` without its trailing slashes, so that `base + "/path"` never doubles one. */
export function trimTrailingSlash(base: string): string {
  return base.replace(/\/+$/, "");
}

/** The URL without credentials or query string (some providers take the key as ?key=), for messages. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}
