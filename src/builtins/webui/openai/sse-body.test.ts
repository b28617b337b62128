/** The streamed answer's body: bounded for a client that stops reading, and told when the client goes. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SseBody } from "./sse-body.js";

test("a client that leaves more than the limit unread ends the stream and cancels the turn", () => {
  const reasons: Error[] = [];
  const body = new SseBody(1000, (reason) => reasons.push(reason));
  assert.equal(body.write("y".repeat(600)), true);
  assert.equal(body.write("z".repeat(600)), false);
  assert.equal(body.isClosed, true);
  assert.equal(reasons.length, 1);
  assert.match(reasons[0].message, /stopped reading: over 1000 bytes/);
  assert.equal(body.write("more"), false, "nothing is queued after that");
});

test("a cancelled body (the client went away) reports it once and takes no more text", async () => {
  const reasons: Error[] = [];
  const body = new SseBody(1000, (reason) => reasons.push(reason));
  body.write("data: 1\n\n");
  await body.readable.cancel();
  assert.equal(reasons.length, 1);
  assert.match(reasons[0].message, /disconnected/);
  assert.equal(body.write("data: 2\n\n"), false);
});

test("a reader gets what was written, then the end", async () => {
  const body = new SseBody(1000, () => assert.fail("not gone"));
  body.write("data: 1\n\n");
  body.write("data: [DONE]\n\n");
  body.close();
  assert.equal(await new Response(body.readable).text(), "data: 1\n\ndata: [DONE]\n\n");
});

test("the server takes the queue a chunk at a time; backlog and taken say how far the client has read", async () => {
  const body = new SseBody(10_000_000, () => assert.fail("not gone"));
  for (let i = 0; i < 4; i += 1) body.write("x".repeat(40_000));
  assert.deepEqual([body.out.backlog, body.out.taken], [160_000, 0]);
  const reader = body.readable.getReader();
  const first = await reader.read();
  assert.equal(first.value?.byteLength, 40_000, "two pieces would pass 64 KiB: one goes alone");
  assert.deepEqual([body.out.backlog, body.out.taken], [120_000, 40_000]);
  body.close();
  let rest = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += r.value.byteLength;
  assert.equal(rest, 120_000);
  assert.deepEqual([body.out.backlog, body.out.taken], [0, 160_000]);
});

test("giveUp drops the queue, fails the stream and reports the reason once", async () => {
  const reasons: Error[] = [];
  const body = new SseBody(10_000, (reason) => reasons.push(reason));
  body.write("data: 1\n\n");
  const reader = body.readable.getReader();
  body.giveUp(new Error("the client stopped reading"));
  body.giveUp(new Error("again"));
  await assert.rejects(reader.read(), /stopped reading/);
  assert.deepEqual(
    reasons.map((r) => r.message),
    ["the client stopped reading"],
  );
  assert.equal(body.out.backlog, 0);
});
