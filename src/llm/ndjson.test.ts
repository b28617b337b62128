import assert from "node:assert/strict";
import { test } from "node:test";
import { ndjsonLines } from "./ndjson.js";

function body(...parts: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(typeof part === "string" ? encoder.encode(part) : part);
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array> | AsyncGenerator<string, "eof">) {
  const lines: string[] = [];
  const gen = stream instanceof ReadableStream ? ndjsonLines(stream) : stream;
  for (;;) {
    const next = await gen.next();
    if (next.done) return { lines, end: next.value };
    lines.push(next.value);
  }
}

test("lines split across reads and inside a UTF-8 character, CRLF, blank lines, no final newline", async () => {
  const euro = new TextEncoder().encode('{"t":"€"}\n');
  const got = await collect(body('{"a"', ":1}\r\n\n", euro.slice(0, 6), euro.slice(6), '  \n{"last":true}'));
  assert.deepEqual(got, { lines: ['{"a":1}', '{"t":"€"}', '{"last":true}'], end: "eof" });
});

test("an empty body yields nothing", async () => {
  assert.deepEqual(await collect(body()), { lines: [], end: "eof" });
});

test("an endless line fails at the limit and cancels the body; a CR inside a line does not end it", async () => {
  let cancelled = false;
  let read = 0;
  async function* stream(): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        read += 4096;
        yield new Uint8Array(4096).fill(0x7b);
      }
    } finally {
      cancelled = true;
    }
  }
  await assert.rejects(collect(ndjsonLines(stream(), { maxLineBytes: 32 * 1024 })), /longer than 32 KiB/);
  assert.ok(read <= 36 * 1024, `read ${read} bytes`);
  assert.equal(cancelled, true);
  assert.deepEqual(await collect(body('{"a":\r1}\n')), { lines: ['{"a":\r1}'], end: "eof" });
});
