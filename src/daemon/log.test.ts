/** Log lines stop at a broken stderr: its error is neither thrown nor logged to itself again. */
import assert from "node:assert/strict";
import { once } from "node:events";
import { Writable } from "node:stream";
import { test } from "node:test";
import { streamLines } from "./log.js";

test("a log stream whose reader is gone (EPIPE) swallows its error and takes no more lines", async () => {
  let writes = 0;
  const stream = new Writable({
    write(_chunk, _encoding, done) {
      writes++;
      done(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    },
  });
  const line = streamLines(stream);
  const failed = once(stream, "error");
  line("first\n");
  await failed;
  line("second\n");
  line("third\n");
  assert.equal(writes, 1);
});
