/**
 * Reads a request body with a byte limit while it streams in, so a client that lies about (or omits)
 * Content-Length cannot make the server buffer more than the limit. Every route reads JSON through here.
 */
import type { Context } from "hono";
import { ApiError } from "./context.js";

/** The body as bytes; ApiError 413 as soon as it passes `maxBytes`. */
export async function readBody(c: Context, maxBytes: number): Promise<Buffer> {
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const stream = c.req.raw.body;
  if (!stream) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The body parsed as a JSON object; 415 for another content type, 400 for bad JSON or a non-object. */
export async function readJson(c: Context, maxBytes: number): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new ApiError(415, "unsupported_media_type", "send the body as JSON with Content-Type: application/json");
  }
  const raw = await readBody(c, maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString("utf8"));
  } catch (err) {
    throw new ApiError(400, "invalid_json", `the body is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ApiError(400, "invalid_body", "the body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, "body_too_large", `the body is over its limit of ${maxBytes} bytes; send less`);
}
