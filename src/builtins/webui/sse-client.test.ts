/** One SSE client's queue on its own: the limit, the count of drops and the gap notice that follows them. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AgentEvent } from "@homeagent/sdk";
import { SseClient } from "./sse-client.js";
import { boundedJson, eventFrame, MAX_FRAME_BYTES } from "./sse-frame.js";
import { EventRing } from "./sse-ring.js";
import { FLUSH_BYTES } from "./sse-stream.js";

const decoder = new TextDecoder();

function event(seq: number, payload: Record<string, unknown> = {}): AgentEvent {
  return { seq, type: "agent_output", source: "kernel", payload, timestamp: 0 };
}

function client(maxQueue: number) {
  const closed: number[] = [];
  let sent = 0;
  const c = new SseClient(7, maxQueue, {
    onSent: (n) => {
      sent += n;
    },
    onClosed: (x) => void closed.push(x.id),
  });
  return { c, closed, sent: () => sent, reader: c.stream.getReader() };
}

async function text(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value } = await reader.read();
  return decoder.decode(value);
}

describe("SseClient", () => {
  it("drops events past its queue, counts them, and tells the client the range once there is room", async () => {
    const { c, reader, sent } = client(2);
    for (let seq = 1; seq <= 5; seq += 1) c.pushEvent(seq, eventFrame(event(seq)));
    assert.equal(c.dropped, 3);
    assert.equal(c.info().queued, 2);
    const first = await text(reader);
    assert.deepEqual(
      [...first.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]),
      ["1", "2"],
    );
    c.pushEvent(6, eventFrame(event(6)));
    const second = await text(reader);
    assert.match(second, /^event: gap\ndata: \{"from":3,"to":5,"dropped":3\}\n\n/);
    assert.match(second, /id: 6\n/);
    assert.equal(sent(), 3);
    assert.equal(c.sent, 3);
  });

  it("hands events that arrive while the socket waits to it in one write, not one write each", async () => {
    const { c, reader } = client(512);
    const pending = reader.read();
    // The read is waiting now; events published one after another must share a write.
    await new Promise((resolve) => setImmediate(resolve));
    for (let seq = 1; seq <= 5; seq += 1) c.pushEvent(seq, eventFrame(event(seq)));
    const { value } = await pending;
    assert.deepEqual(
      [...decoder.decode(value).matchAll(/^id: (\d+)$/gm)].map((m) => m[1]),
      ["1", "2", "3", "4", "5"],
    );
  });

  it("never sends an event twice (a live event at or below what the replay gave)", async () => {
    const { c, reader } = client(10);
    c.preload(eventFrame(event(4)), 4);
    c.pushEvent(3, eventFrame(event(3)));
    c.pushEvent(4, eventFrame(event(4)));
    c.pushEvent(5, eventFrame(event(5)));
    const got = await text(reader);
    assert.deepEqual(
      [...got.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]),
      ["4", "5"],
    );
  });

  it("lets go of its queue at once when the stream is cancelled", async () => {
    const { c, reader, closed } = client(10);
    c.pushEvent(1, eventFrame(event(1)));
    c.pushEvent(2, eventFrame(event(2)));
    await reader.cancel();
    assert.deepEqual(closed, [7]);
    assert.equal(c.info().queued, 0);
    assert.equal(c.isClosed, true);
    assert.equal(c.pushEvent(3, eventFrame(event(3))), true, "nothing is queued (or counted as dropped) after");
    assert.equal(c.info().queued, 0);
  });

  it("hands a long replay out a write at a time, so a client that stops reading holds no copy of it", async () => {
    const { c, reader } = client(512);
    for (let seq = 1; seq <= 50; seq += 1) c.preload(eventFrame(event(seq, { result: "x".repeat(40_000) })), seq);
    const ids: string[] = [];
    while (c.info().queued > 0) {
      const { value } = await reader.read();
      assert.ok(value && value.byteLength <= FLUSH_BYTES, `one write is ${value?.byteLength} bytes`);
      ids.push(...[...decoder.decode(value).matchAll(/^id: (\d+)$/gm)].map((m) => m[1]));
      if (ids.length === 1) assert.equal(c.info().queued, 49, "the rest waits as the shared frames themselves");
    }
    assert.deepEqual(
      ids,
      Array.from({ length: 50 }, (_, i) => String(i + 1)),
    );
    const single = client(4);
    single.c.preload(eventFrame(event(1, { result: "y".repeat(FLUSH_BYTES * 2) })), 1);
    assert.ok(((await single.reader.read()).value?.byteLength ?? 0) > FLUSH_BYTES, "a larger frame still goes, alone");
  });

  it("a heartbeat goes only when nothing else is waiting", async () => {
    const { c, reader } = client(10);
    c.pushEvent(1, eventFrame(event(1)));
    c.out.pushIfIdle(new TextEncoder().encode(": heartbeat\n\n"));
    assert.equal(c.info().queued, 1);
    await text(reader);
    c.out.pushIfIdle(new TextEncoder().encode(": heartbeat\n\n"));
    assert.equal(await text(reader), ": heartbeat\n\n");
  });
});

describe("SSE frames", () => {
  it("cut an oversized payload to fit and mark it truncated", () => {
    const json = boundedJson(event(1, { requestId: "r", result: "長".repeat(400_000), small: "ok" }));
    assert.ok(Buffer.byteLength(json) <= MAX_FRAME_BYTES);
    const parsed = JSON.parse(json);
    assert.equal(parsed.payload.truncated, true);
    assert.equal(parsed.payload.small, "ok");
    assert.equal(parsed.payload.requestId, "r");
  });

  it("leave a payload that fits alone, and survive one that is not JSON", () => {
    assert.deepEqual(JSON.parse(boundedJson(event(2, { a: 1 }))).payload, { a: 1 });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.deepEqual(JSON.parse(boundedJson(event(3, cyclic))).payload, { unserializable: true });
  });
});

describe("EventRing", () => {
  it("holds at most its bytes as well as its count, telling a client that missed the oldest of the gap", () => {
    const ring = new EventRing(200, 1000);
    for (let seq = 1; seq <= 10; seq += 1) {
      ring.saw(seq);
      ring.push(seq, new Uint8Array(300));
    }
    assert.equal(ring.size, 3);
    assert.ok(ring.byteSize <= 1000);
    const replay = ring.since(2);
    assert.deepEqual(replay.gap, { from: 3, to: 7 });
    assert.deepEqual(
      replay.entries.map((e) => e.seq),
      [8, 9, 10],
    );
    ring.saw(11);
    ring.push(11, new Uint8Array(5000));
    assert.deepEqual(
      ring.since(10).entries.map((e) => e.seq),
      [11],
      "one frame over the bound is still kept",
    );
  });
});
