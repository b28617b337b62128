import assert from "node:assert/strict";
import { test } from "node:test";
import { LineTooLongError } from "./lines.js";
import { sseBatches, sseData } from "./sse.js";

function body(...parts: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(typeof part === "string" ? encoder.encode(part) : part);
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array> | AsyncGenerator<string, "done" | "eof">) {
  const events = stream instanceof ReadableStream ? sseData(stream) : stream;
  const data: string[] = [];
  for (;;) {
    const next = await events.next();
    if (next.done) return { data, end: next.value };
    data.push(next.value);
  }
}

test("lines split across reads, CRLF and lone CR, comments, multi-line data", async () => {
  const euro = new TextEncoder().encode("data: €\n\n");
  const got = await collect(
    body(
      ": keep-alive comment\n",
      'data: {"a"',
      ":1}\r",
      "\n\r\n",
      "event: ignored\ndata: line one\ndata:line two\n\n",
      "data: cr\r\r",
      euro.slice(0, 7),
      euro.slice(7),
      "data: [DONE]\n\n",
      "data: after done\n\n",
    ),
  );
  assert.deepEqual(got, { data: ['{"a":1}', "line one\nline two", "cr", "€"], end: "done" });
});

test("a stream without [DONE] ends with eof, keeping a last event that lacks its blank line", async () => {
  assert.deepEqual(await collect(body("data: one\n\n", "data: two")), { data: ["one", "two"], end: "eof" });
  assert.deepEqual(await collect(body("")), { data: [], end: "eof" });
});

test("stopping early cancels the body", async () => {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new TextEncoder().encode("data: x\n\n"));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const data of sseData(stream)) {
    assert.equal(data, "x");
    break;
  }
  assert.equal(cancelled, true);
});

/** An endless body of `chunk` bytes, counting what was read and whether it was stopped. */
function endless(chunk: Uint8Array) {
  const seen = { bytes: 0, cancelled: false };
  async function* stream(): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        seen.bytes += chunk.length;
        yield chunk;
      }
    } finally {
      seen.cancelled = true;
    }
  }
  return { stream: stream(), seen };
}

test("an endless line without a line end fails at the limit, reads no further and cancels the body", async () => {
  const { stream, seen } = endless(new Uint8Array(16 * 1024).fill(0x78));
  await assert.rejects(
    collect(sseData(stream, { maxLineBytes: 64 * 1024 })),
    (err: Error) =>
      err instanceof LineTooLongError &&
      /a stream line is longer than 64 KiB/.test(err.message) &&
      err.code === "stream_line_too_long",
  );
  assert.ok(seen.bytes <= 64 * 1024 + 16 * 1024, `read ${seen.bytes} bytes`);
  assert.equal(seen.cancelled, true);
});

test("an event built of many short data lines is capped as a whole; a line at the limit passes", async () => {
  const line = new TextEncoder().encode(`data: ${"y".repeat(1000)}\n`);
  const { stream, seen } = endless(line);
  await assert.rejects(collect(sseData(stream, { maxLineBytes: 8 * 1024 })), /a stream event is longer than 8 KiB/);
  assert.equal(seen.cancelled, true);
  const exact = `data: ${"z".repeat(8 * 1024 - 6)}`;
  assert.deepEqual(await collect(sseData(body(`${exact}\n\n`), { maxLineBytes: 8 * 1024 })), {
    data: ["z".repeat(8 * 1024 - 6)],
    end: "eof",
  });
});

test("payloads completed by one read come as one batch; those before [DONE] still come", async () => {
  const batches: string[][] = [];
  const events = sseBatches(body("data: 1\n\ndata: 2\n\ndata: 3", "\n\n", "data: 4\n\ndata: [DONE]\n\ndata: 5\n\n"));
  for (;;) {
    const next = await events.next();
    if (next.done) {
      assert.equal(next.value, "done");
      break;
    }
    batches.push(next.value);
  }
  assert.deepEqual(batches, [["1", "2"], ["3"], ["4"]]);
});
