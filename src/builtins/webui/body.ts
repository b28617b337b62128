/**
 * Reads a request body with a byte limit while it streams in, so a client that lies about (or omits)
 * Content-Length cannot make the server buffer more than the limit. Every route reads JSON through here.
 */
import type { Context } from "hono";
import { ApiError } from "./context.js";

/** The body as bytes; ApiError 413 as soon as it passes `maxBytes`, 415 when it is compressed. */
export async function readBody(c: Context, maxBytes: number): Promise<Buffer> {
  const encoding = c.req.header("content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    // Nothing here inflates bodies: read as they are, compressed bytes would only fail later as "not JSON".
    throw new ApiError(
      415,
      "unsupported_content_encoding",
      `the body is sent with Content-Encoding: ${encoding.slice(0, 40)}; send it uncompressed`,
    );
  }
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
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch (err) {
    // Decoding leniently would put U+FFFD in place of the client's text, silently, into the agent's memory.
    throw new ApiError(400, "invalid_json", "the body is not valid UTF-8; JSON must be sent as UTF-8", { cause: err });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, "invalid_json", `the body is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ApiError(400, "invalid_body", "the body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function tooLarge(maxBytes: number): ApiError {
  return new ApiError(413, "body_too_large", `the body is over its limit of ${maxBytes} bytes; send less`);
}
