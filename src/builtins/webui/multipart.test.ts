/** The streaming multipart reader on its own: exact bytes whatever the chunking, and its bounds. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "./context.js";
import { type FilePartInfo, multipartBoundary, readMultipart } from "./multipart.js";

const B = "XyZ-boundary-123";
const LIMITS = { maxFileBytes: 1 << 20, maxFieldBytes: 1024, maxParts: 8 };

function body(file: Buffer, extra = ""): Buffer {
  return Buffer.concat([
    Buffer.from(
      `preamble to ignore\r\n--${B}\r\nContent-Disposition: form-data; name="message"\r\n\r\n你好\r\nsecond line`,
    ),
    Buffer.from(`\r\n--${B}\r\nContent-Disposition: form-data; name="file"; filename="a \\"q\\".bin"\r\n`),
    Buffer.from("Content-Type: application/x-test\r\n\r\n"),
    file,
    Buffer.from(`\r\n--${B}--\r\n${extra}`),
  ]);
}

function streamOf(data: Buffer, chunk: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= data.length) controller.close();
      else {
        controller.enqueue(new Uint8Array(data.subarray(at, at + chunk)));
        at += chunk;
      }
    },
  });
}

async function parse(data: Buffer, chunk: number, limits = LIMITS) {
  const written: Buffer[] = [];
  let info: FilePartInfo | undefined;
  const result = await readMultipart(streamOf(data, chunk), B, limits, async (part) => {
    info = part;
    return { write: async (c) => void written.push(Buffer.from(c)) };
  });
  return { result, info, file: Buffer.concat(written) };
}

describe("readMultipart", () => {
  it("gives the exact file bytes and fields however the body is cut into chunks", async () => {
    // Content that looks like the start of a delimiter, and every byte value.
    const file = Buffer.concat([
      Buffer.from(`\r\n--${B.slice(0, 8)}\r\n--`),
      Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
      Buffer.from("\r\n-"),
    ]);
    for (const chunk of [1, 2, 3, 7, 16, 19, 64, 4096]) {
      const { result, info, file: got } = await parse(body(file), chunk);
      assert.deepEqual(got, file, `chunk ${chunk}`);
      assert.equal(result.fields.message, "你好\r\nsecond line");
      assert.deepEqual(info, { field: "file", filename: 'a "q".bin', type: "application/x-test" });
      assert.equal(result.file?.size, file.length);
    }
  });

  it("decodes an RFC 5987 filename*", async () => {
    const data = Buffer.from(
      `--${B}\r\nContent-Disposition: form-data; name="file"; filename="fallback"; filename*=UTF-8''%E6%8A%A5%E5%91%8A.txt\r\n\r\nx\r\n--${B}--`,
    );
    assert.equal((await parse(data, 5)).info?.filename, "报告.txt");
  });

  it("stops at each bound with its error", async () => {
    const expect = async (data: Buffer, limits: typeof LIMITS, status: number, code: string) => {
      await assert.rejects(parse(data, 64, limits), (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.status, status);
        assert.equal(err.code, code);
        return true;
      });
    };
    await expect(body(Buffer.alloc(2000)), { ...LIMITS, maxFileBytes: 1000 }, 413, "upload_too_large");
    await expect(body(Buffer.alloc(10)), { ...LIMITS, maxFieldBytes: 4 }, 413, "message_too_large");
    await expect(body(Buffer.alloc(10)), { ...LIMITS, maxParts: 1 }, 400, "invalid_multipart");
    const twoFiles = Buffer.from(
      `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n1\r\n--${B}\r\nContent-Disposition: form-data; name="file"; filename="b"\r\n\r\n2\r\n--${B}--`,
    );
    await expect(twoFiles, LIMITS, 400, "invalid_multipart");
    await expect(
      Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nno end`),
      LIMITS,
      400,
      "invalid_multipart",
    );
    await expect(Buffer.from(`--${B}\r\n${"X-Long: y\r\n".repeat(2000)}`), LIMITS, 400, "invalid_multipart");
  });

  it("bounds a part's headers even when they arrive in one chunk with their end", async () => {
    const flood = Buffer.from(
      `--${B}\r\n${"X-Long: y\r\n".repeat(2000)}Content-Disposition: form-data; name="file"; filename="a"\r\n\r\nx\r\n--${B}--`,
    );
    await assert.rejects(parse(flood, flood.length), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.code, "invalid_multipart");
      assert.match(err.message, /headers are too long/);
      return true;
    });
  });

  it("takes fields named like Object's own members as plain fields", async () => {
    const names = ["constructor", "toString", "__proto__", "hasOwnProperty"];
    const parts = names.map((n) => `--${B}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\nv-${n}\r\n`).join("");
    const { result } = await parse(Buffer.from(`${parts}--${B}--`), 7);
    assert.deepEqual(
      names.map((n) => Object.hasOwn(result.fields, n) && result.fields[n]),
      names.map((n) => `v-${n}`),
    );
  });

  it("reads the boundary from the Content-Type, refusing other types", () => {
    assert.equal(multipartBoundary(`multipart/form-data; boundary="${B}"`), B);
    assert.equal(multipartBoundary(`multipart/form-data; charset=utf-8; boundary=${B}`), B);
    assert.throws(() => multipartBoundary("application/json"), { status: 415 });
    assert.throws(() => multipartBoundary("multipart/form-data"), { status: 400 });
  });
});
