/** Stand-ins carry long texts past the adapter and come back exactly, escaped once, wherever they were put. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { STAND_IN_MIN_CHARS, withStandIns } from "./stand-ins.js";

test("long strings become stand-ins; short ones, and ones holding the stand-in marks, stay as they are", () => {
  const long = `"quoted" line\nnext \\ 中文 ${"x".repeat(STAND_IN_MIN_CHARS)}`;
  const marked = `\uE000${"y".repeat(STAND_IN_MIN_CHARS)}`;
  const { wire, restore } = withStandIns({ a: long, b: "short", c: [marked, { d: long }] });
  const seen = JSON.parse(wire) as { a: string; b: string; c: [string, { d: string }] };
  assert.ok(seen.a.length < 10, seen.a);
  assert.equal(seen.b, "short");
  assert.equal(seen.c[0], marked);
  assert.ok(seen.c[1].d.length < 10);
  // What an adapter may do with a stand-in: copy it, move it, join it into a longer string.
  const body = JSON.stringify({ x: seen.a, joined: `${seen.c[1].d} + ${seen.a}`, kept: seen.c[0] });
  assert.deepEqual(JSON.parse(restore(body)), { x: long, joined: `${long} + ${long}`, kept: marked });
});

test("a body without stand-ins, or with a number no text has, is returned unchanged", () => {
  const { restore } = withStandIns({ a: "x".repeat(STAND_IN_MIN_CHARS) });
  assert.equal(restore('{"a":"plain"}'), '{"a":"plain"}');
  assert.equal(restore('{"a":"\uE0009\uE001"}'), '{"a":"\uE0009\uE001"}');
  assert.equal(withStandIns({ a: "short" }).restore('{"a":"\uE0000\uE001"}'), '{"a":"\uE0000\uE001"}');
});
