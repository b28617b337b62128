/**
 * Checks of query parameters and JSON body fields for the chat and memory routes: every refusal is a 400
 * that names the parameter and says what it must be.
 */
import type { ErrorCode } from "@homeagent/sdk";
import type { Context } from "hono";
import { ApiError } from "./context.js";

export function invalid(name: string, rule: string): ApiError {
  return new ApiError(400, "invalid_argument", `${name} ${rule}`);
}

const FIELD_TOO_LARGE: Record<string, ErrorCode> = {
  message: "message_too_large",
  query: "query_too_large",
  code: "code_too_large",
};

/** The 413 code of a field over its limit: `<name>_too_large` for the fields the API takes, else field_too_large. */
export function tooLargeCode(name: string): ErrorCode {
  return Object.hasOwn(FIELD_TOO_LARGE, name) ? FIELD_TOO_LARGE[name] : "field_too_large";
}

/** An integer query parameter within [min, max]; `fallback` when absent or empty. */
export function intQuery(c: Context, name: string, min: number, max: number, fallback?: number): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  if (!/^-?\d{1,16}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw invalid(name, `must be an integer from ${min} to ${max}`);
  }
  return Number(raw);
}

/** A non-empty text query parameter of at most `maxChars`. */
export function textQuery(c: Context, name: string, maxChars: number): string {
  const raw = c.req.query(name);
  if (raw === undefined || raw.trim() === "") throw invalid(name, "is required (a non-empty text)");
  if (raw.length > maxChars) throw invalid(name, `must be at most ${maxChars} characters`);
  return raw;
}

/** An optional string field; undefined when absent or null. */
export function optionalString(
  body: Record<string, unknown>,
  name: string,
  maxChars: number,
  pattern?: { re: RegExp; rule: string },
): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw invalid(name, "must be a string");
  if (value.length === 0 || value.length > maxChars) throw invalid(name, `must be 1 to ${maxChars} characters`);
  if (pattern && !pattern.re.test(value)) throw invalid(name, pattern.rule);
  return value;
}

/**
 * A required non-blank string field of at most `maxBytes` UTF-8 bytes (413 past it, the message ending
 * with `whatNext`: what the client can do instead).
 */
export function requiredText(
  body: Record<string, unknown>,
  name: string,
  maxBytes: number,
  whatNext = "send it in parts",
): string {
  const value = body[name];
  if (typeof value !== "string" || value.trim() === "") throw invalid(name, "is required (a non-empty string)");
  if (Buffer.byteLength(value) > maxBytes) {
    throw new ApiError(413, tooLargeCode(name), `${name} is over its limit of ${maxBytes} bytes; ${whatNext}`);
  }
  return value;
}

export function optionalBoolean(body: Record<string, unknown>, name: string): boolean | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw invalid(name, "must be true or false");
  return value;
}
