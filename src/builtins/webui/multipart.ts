/**
 * A streaming multipart/form-data reader (RFC 7578) for uploads: the file part goes to a sink chunk by
 * chunk as it arrives, so a 64 MiB upload never sits in memory, and every bound (file bytes, field bytes,
 * number of parts, header size) is checked while reading, not after. Text fields are small and kept.
 */
import { ApiError } from "./context.js";
import { tooLargeCode } from "./params.js";

export interface MultipartLimits {
  maxFileBytes: number;
  /** Each text field. */
  maxFieldBytes: number;
  maxParts: number;
}

export interface FilePartInfo {
  field: string;
  /** As the client named it (unsafe until cleaned). */
  filename: string;
  /** The part's Content-Type header, unchecked. */
  type: string | undefined;
}

/** Where the file part's bytes go; `write` resolves when the chunk is stored (back-pressure). */
export interface FileSink {
  write(chunk: Uint8Array): Promise<void>;
}

export interface MultipartResult {
  fields: Record<string, string>;
  file?: FilePartInfo & { size: number };
}

const MAX_HEADER_BYTES = 8 * 1024;
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");

/** The boundary of a multipart/form-data Content-Type; 415 for any other type, 400 without a boundary. */
export function multipartBoundary(contentType: string | undefined): string {
  const type = contentType ?? "";
  if (!/^multipart\/form-data\b/i.test(type)) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      "send the file as multipart/form-data (a form with a file field)",
    );
  }
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(type);
  if (!match) throw malformed("the Content-Type has no boundary");
  return match[1] ?? match[2];
}

/**
 * Reads the whole body. `openFile` is called once, for the one file part, when its headers are in;
 * a second file part, too many parts or a field over its limit end the read with the error.
 */
export async function readMultipart(
  body: ReadableStream<Uint8Array> | null,
  boundary: string,
  limits: MultipartLimits,
  openFile: (part: FilePartInfo) => Promise<FileSink>,
): Promise<MultipartResult> {
  if (!body) throw malformed("the body is empty");
  // The body starts with "--boundary"; a CRLF in front lets every delimiter be found the same way.
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // No prototype: a field may be named "constructor" or "__proto__" like any other.
  const result: MultipartResult = { fields: Object.create(null) as Record<string, string> };
  let buf: Buffer = Buffer.from(CRLF);
  let state = "preamble" as "preamble" | "next" | "headers" | "body" | "done";
  let parts = 0;
  let part: { name: string; sink?: FileSink; chunks: Buffer[]; size: number } | null = null;

  const emit = async (data: Buffer): Promise<void> => {
    if (!part || data.length === 0) return;
    part.size += data.length;
    if (part.sink) {
      if (part.size > limits.maxFileBytes) {
        throw new ApiError(413, "upload_too_large", `the file is over the limit of ${limits.maxFileBytes} bytes`);
      }
      await part.sink.write(data);
    } else {
      if (part.size > limits.maxFieldBytes) {
        throw new ApiError(
          413,
          tooLargeCode(part.name),
          `${part.name} is over its limit of ${limits.maxFieldBytes} bytes`,
        );
      }
      part.chunks.push(Buffer.from(data));
    }
  };

  const endPart = (): void => {
    if (!part) return;
    if (part.sink && result.file) result.file.size = part.size;
    else if (!part.sink) result.fields[part.name] = Buffer.concat(part.chunks).toString("utf8");
    part = null;
  };

  const startPart = async (headerText: string): Promise<void> => {
    if (++parts > limits.maxParts) throw malformed(`more than ${limits.maxParts} parts`);
    const headers = parseHeaders(headerText);
    const disposition = headers.get("content-disposition") ?? "";
    const params = dispositionParams(disposition);
    const name = params.get("name");
    if (!/^form-data\b/i.test(disposition) || name === undefined) throw malformed("a part has no form-data name");
    const filename = params.get("filename*") ?? params.get("filename");
    if (filename === undefined) {
      if (Object.hasOwn(result.fields, name)) throw malformed(`the field ${name} is given twice`);
      part = { name, chunks: [], size: 0 };
      return;
    }
    if (result.file) throw malformed("only one file may be sent at a time");
    const info: FilePartInfo = { field: name, filename, type: headers.get("content-type") };
    result.file = { ...info, size: 0 };
    part = { name, sink: await openFile(info), chunks: [], size: 0 };
  };

  /** Consumes what it can of `buf`; false when it needs more bytes. */
  const step = async (): Promise<boolean> => {
    switch (state) {
      case "preamble": {
        const at = buf.indexOf(delimiter);
        if (at === -1) {
          buf = buf.subarray(Math.max(0, buf.length - delimiter.length));
          return false;
        }
        buf = buf.subarray(at + delimiter.length);
        state = "next";
        return true;
      }
      case "next": {
        if (buf.length < 2) return false;
        const mark = buf.subarray(0, 2).toString("latin1");
        if (mark === "--") state = "done";
        else if (mark === "\r\n") state = "headers";
        else throw malformed("a boundary is followed by neither CRLF nor --");
        buf = buf.subarray(2);
        return state !== "done";
      }
      case "headers": {
        const at = buf.indexOf(HEADER_END);
        // Whether the headers' end came in the same chunk or not, they are bounded.
        if (at > MAX_HEADER_BYTES || (at === -1 && buf.length > MAX_HEADER_BYTES)) {
          throw malformed("a part's headers are too long");
        }
        if (at === -1) return false;
        const text = buf.subarray(0, at).toString("utf8");
        buf = buf.subarray(at + HEADER_END.length);
        await startPart(text);
        state = "body";
        return true;
      }
      case "body": {
        const at = buf.indexOf(delimiter);
        if (at === -1) {
          // The end may hold the start of a delimiter: keep it for the next chunk.
          const safe = buf.length - (delimiter.length - 1);
          if (safe > 0) {
            await emit(buf.subarray(0, safe));
            buf = buf.subarray(safe);
          }
          return false;
        }
        await emit(buf.subarray(0, at));
        endPart();
        buf = buf.subarray(at + delimiter.length);
        state = "next";
        return true;
      }
      default:
        return false;
    }
  };

  const reader = body.getReader();
  try {
    while (state !== "done") {
      const { done, value } = await reader.read();
      if (done) break;
      buf = buf.length === 0 ? Buffer.from(value) : Buffer.concat([buf, value]);
      while (await step()) {
        // each step consumes part of the buffer
      }
    }
  } catch (err) {
    await reader.cancel().catch(() => {});
    throw err;
  }
  if (state !== "done") throw malformed("the body ended before its closing boundary");
  await reader.cancel().catch(() => {});
  return result;
}

function malformed(why: string): ApiError {
  return new ApiError(400, "invalid_multipart", `the multipart body is malformed: ${why}`);
}

function parseHeaders(text: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** `name`, `filename` and `filename*` (RFC 5987, UTF-8) of a Content-Disposition header. */
function dispositionParams(value: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const m of value.matchAll(/;\s*([\w*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
    const key = m[1].toLowerCase();
    let v = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : (m[3] ?? "").trim();
    if (key.endsWith("*")) {
      const ext = /^([\w-]*)'[\w-]*'(.*)$/.exec(v);
      try {
        v = ext ? decodeURIComponent(ext[2]) : v;
      } catch {
        continue;
      }
    }
    params.set(key, v);
  }
  return params;
}
