import assert from "node:assert/strict";
import { test } from "node:test";
import { sseData } from "./sse.js";

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
  const events = sseData(stream);
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
