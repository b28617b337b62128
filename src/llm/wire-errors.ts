/**
 * A provider's non-2xx answer → a classified ProviderError. The kind drives the ProviderManager: "auth"
 * disables the source, "transient" retries (honouring `retryAfterMs`), "context_length" prunes the
 * request and retries once, "fatal" moves on.
 */
import { errorKindForStatus, ProviderError } from "./provider.js";

const SNIPPET_CHARS = 300;

// Phrasings of "the prompt does not fit" by OpenAI, Anthropic, Gemini, vLLM and llama.cpp servers.
const CONTEXT_TOO_LONG =
  /context[ _.-]?length|maximum context|context size|context window|too many tokens|prompt is too long|exceeds the maximum number of tokens/i;

export function httpError(
  res: Pick<Response, "status" | "statusText" | "headers">,
  body: string,
  redact: (text: string) => string,
): ProviderError {
  const detail = errorDetail(body);
  const message = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${detail ? `: ${redact(detail)}` : ""}`;
  if ((res.status === 400 || res.status === 413) && CONTEXT_TOO_LONG.test(body)) {
    return new ProviderError(message, "context_length", { status: res.status });
  }
  const kind = errorKindForStatus(res.status);
  const retryAfterMs = kind === "transient" ? parseRetryAfter(res.headers.get("retry-after")) : undefined;
  return new ProviderError(message, kind, { status: res.status, retryAfterMs });
}

/** `retry-after` is either delay-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // Date.parse takes "-5" for a year; an HTTP date always names its weekday and month.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The provider's own error text when the body is JSON (`error.message` or Ollama's `error`), else its start. */
export function errorDetail(body: string): string {
  try {
    const error = JSON.parse(body)?.error;
    const message = typeof error === "string" ? error : error?.message;
    if (typeof message === "string" && message) return message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return snippet(body);
}

export function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat;
}
