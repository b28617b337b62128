/** A plugin's stderr: bounded lines in the log, the last few KiB kept for the crash report. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { STDERR_LINE_CHARS, STDERR_TAIL_BYTES, StderrLog } from "./stderr-log.js";

test("stderr is logged line by line, across chunks, with each line bounded", () => {
  const lines: string[] = [];
  const log = new StderrLog((line) => lines.push(line));
  log.push(Buffer.from("first li"));
  log.push(Buffer.from("ne\r\nsecond\n"));
  log.push(Buffer.from("x".repeat(STDERR_LINE_CHARS + 10)));
  log.push(Buffer.from("yyy\nno newline at the end"));
  log.end();
  assert.deepEqual(lines, [
    "first line",
    "second",
    `${"x".repeat(STDERR_LINE_CHARS)}… [13 more characters]`,
    "no newline at the end",
  ]);
});

test("the tail keeps the last bytes and never starts inside a character", () => {
  const log = new StderrLog(() => {});
  const euro = Buffer.from("€"); // 3 bytes
  log.push(Buffer.concat([Buffer.from("a".repeat(10)), ...new Array(STDERR_TAIL_BYTES).fill(euro)]));
  log.push(Buffer.from("\nthe end\n"));
  const tail = log.tail();
  assert.ok(Buffer.byteLength(tail) <= STDERR_TAIL_BYTES);
  assert.ok(tail.endsWith("€\nthe end\n"));
  assert.ok(tail.startsWith("€"), "a cut character is dropped, not shown as a replacement");
  assert.ok(!tail.includes("\ufffd"));
});
