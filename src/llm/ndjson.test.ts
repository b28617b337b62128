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

async function collect(stream: ReadableStream<Uint8Array>) {
  const lines: string[] = [];
  const gen = ndjsonLines(stream);
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
