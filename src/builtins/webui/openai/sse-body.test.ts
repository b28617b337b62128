/** The streamed answer's body: bounded for a client that stops reading, and told when the client goes. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { SseBody } from "./sse-body.js";

test("a client that leaves more than the limit unread ends the stream and cancels the turn", () => {
  const reasons: Error[] = [];
  const body = new SseBody(1000, (reason) => reasons.push(reason));
  // The stream holds 64 KiB before it counts against the limit: fill that first.
  assert.equal(body.write("x".repeat(64 * 1024)), true);
  assert.equal(body.write("y".repeat(600)), true);
  assert.equal(body.write("z".repeat(600)), false);
  assert.equal(body.closed, true);
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
