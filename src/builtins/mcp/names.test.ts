/**
 * What of a server's tool list reaches the model: names made to fit every provider's rule (long ones kept
 * apart by a hash), descriptions and schema texts stripped of control and invisible characters and cut.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { cleanText, MAX_DESCRIPTION, toolDescription, toolName } from "./names.js";

test("tool names fit 1–64 of letters, digits, _ and -; long ones keep their start and stay apart", () => {
  assert.equal(toolName("everything", "get-tiny-image"), "everything_get-tiny-image");
  assert.equal(toolName("fs", "read file.v2"), "fs_read_file_v2");
  assert.match(toolName("fs", "读取\u200b文件"), /^fs_{5}_[0-9a-f]{8}$/);
  assert.notEqual(toolName("fs", "读取"), toolName("fs", "写入"));
  const a = toolName("server", `${"x".repeat(80)}_a`);
  const b = toolName("server", `${"x".repeat(80)}_b`);
  assert.equal(a.length, 64);
  assert.notEqual(a, b);
  assert.match(a, /^server_x+_[0-9a-f]{8}$/);
});

test("descriptions lose control, zero-width, bidi and tag characters; newlines stay, length is cut", () => {
  assert.equal(cleanText("a\u001b[2Jb\u0000c\u200bd\u202ee\u{E0049}f\r\n\tg"), "a[2Jbcdef\n g");
  assert.equal(cleanText("one\n\n\n\n\ntwo"), "one\n\ntwo");
  // Variation selectors can spell out a whole hidden text; fillers and blanks draw nothing.
  assert.equal(cleanText("ok\u{E0100}\u{E0142}\ufe0f\u3164\u2800\u034f\u180b."), "ok.");
  assert.equal(cleanText("x".repeat(5_000)).length, MAX_DESCRIPTION);
  assert.equal(toolDescription("s", undefined, "\u200b"), "[MCP/s] (no description)");
  assert.equal(toolDescription("s", "Title", ""), "[MCP/s] Title");
});
