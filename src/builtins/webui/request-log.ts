/**
 * One log line per request (method, path without its query, status, duration, how it authenticated, the
 * client's address), so what reached the server is visible without exposing query strings, which may hold
 * search text. Turned off with `plugin.webui.request_log = false`. The path is the client's text, decoded:
 * control characters (a carriage return, terminal escapes) and bidi overrides in it would let anyone who
 * can reach the port forge or hide log lines, so they are written percent-encoded.
 */
import type { MiddlewareHandler } from "hono";
import type { WebEnv } from "./context.js";

export function requestLog(enabled: () => boolean, write: (line: string) => void): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      if (enabled()) {
        const ms = Math.round(performance.now() - started);
        const auth = c.get("authKind") ?? "none";
        const address = c.get("clientAddress") ?? "?";
        write(`${c.req.method} ${loggable(c.req.path)} ${c.res.status} ${ms}ms auth=${auth} from ${address}`);
      }
    }
  };
}

const MAX_LOGGED_CHARS = 300;

/** A client-given text as it may appear in a log line: cut to 300 characters, unsafe ones percent-encoded. */
export function loggable(text: string): string {
  let out = "";
  for (const ch of text.slice(0, MAX_LOGGED_CHARS))
    out += isUnsafe(ch.codePointAt(0) ?? 0) ? encodeURIComponent(ch) : ch;
  return out;
}

/** C0 and C1 controls, DEL, and the invisible characters that reorder or hide text. */
export function isUnsafe(cp: number): boolean {
  return (
    cp < 0x20 ||
    (cp >= 0x7f && cp <= 0x9f) ||
    cp === 0x61c ||
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x2028 && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2069) ||
    cp === 0xfeff
  );
}
