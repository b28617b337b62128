/**
 * The event stream with a fake EventSource: repeats dropped by seq, a reconnect and the server's gap notice
 * reported as possibly missed events, a daemon restart (seq from 1 again) accepted, and a stream made anew
 * asking for a replay from the last seq.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type BusEvent, EventStream, type MessageLike, type SourceLike } from "./events";

class FakeSource implements SourceLike {
  readyState = 0;
  private readonly handlers = new Map<string, ((event: MessageLike) => void)[]>();
  constructor(readonly url: string) {}
  addEventListener(type: string, listener: (event: MessageLike) => void): void {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), listener]);
  }
  close(): void {
    this.readyState = 2;
  }
  open(): void {
    this.readyState = 1;
    this.emit({ type: "open" });
  }
  send(type: string, seq: number, payload: Record<string, unknown> = {}): void {
    this.emit({ type, lastEventId: String(seq), data: JSON.stringify({ seq, type, payload }) });
  }
  emit(event: MessageLike): void {
    for (const handler of this.handlers.get(event.type) ?? []) handler(event);
  }
}

function setup() {
  const sources: FakeSource[] = [];
  const stream = new EventStream((url) => {
    const source = new FakeSource(url);
    sources.push(source);
    return source;
  });
  const seen: BusEvent[] = [];
  let missed = 0;
  stream.on("content_delta", (e) => seen.push(e));
  stream.onMissed(() => {
    missed += 1;
  });
  const seqs = () => seen.map((e) => e.seq);
  return { sources, stream, seen, seqs, missed: () => missed };
}

describe("EventStream", () => {
  it("passes each event on once, in order, with its payload", () => {
    const { sources, seen, seqs, missed } = setup();
    const [source] = sources;
    assert.equal(source.url, "/api/v1/chat/events");
    source.open();
    source.send("content_delta", 1, { content: "a" });
    source.send("content_delta", 2, { content: "b" });
    source.send("content_delta", 2, { content: "b" });
    source.send("content_delta", 1, { content: "a" });
    assert.deepEqual(seqs(), [1, 2]);
    assert.deepEqual(seen[1].payload, { content: "b" });
    assert.equal(missed(), 0, "a first open counted as a reconnect");
  });

  it("reports a reconnect as possibly missed events, and replayed events after it pass", () => {
    const { sources, seqs, missed } = setup();
    const [source] = sources;
    source.open();
    source.send("content_delta", 5);
    source.open();
    assert.equal(missed(), 1);
    source.send("content_delta", 6);
    source.send("content_delta", 9);
    source.send("content_delta", 9);
    assert.deepEqual(seqs(), [5, 6, 9]);
  });

  it("after a reconnect takes a lower seq as a restarted daemon and counts from it", () => {
    const { sources, seqs } = setup();
    const [source] = sources;
    source.open();
    source.send("content_delta", 500);
    source.open();
    source.send("content_delta", 1);
    source.send("content_delta", 2);
    source.send("content_delta", 2);
    assert.deepEqual(seqs(), [500, 1, 2]);
  });

  it("reports the server's gap notice", () => {
    const { sources, missed } = setup();
    sources[0].open();
    sources[0].emit({ type: "gap", data: JSON.stringify({ from: 3, to: 40 }) });
    assert.equal(missed(), 1);
  });

  it("a stream made anew after a close asks for a replay and counts as a reconnect", () => {
    const { sources, stream, seqs, missed } = setup();
    sources[0].open();
    sources[0].send("content_delta", 17);
    stream.close();
    assert.equal(sources[0].readyState, 2);
    stream.connect();
    assert.equal(sources.length, 2);
    assert.equal(sources[1].url, "/api/v1/chat/events?lastEventId=17");
    sources[1].open();
    assert.equal(missed(), 1);
    sources[1].send("content_delta", 18);
    assert.deepEqual(seqs(), [17, 18]);
    stream.connect();
    assert.equal(sources.length, 2, "connect opened a second stream while one was open");
  });
});
