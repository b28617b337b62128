/** Stand-ins carry long texts past the adapter and come back exactly, escaped once, wherever they were put. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { STAND_IN_MIN_CHARS, withStandIns } from "./stand-ins.js";

test("long strings become stand-ins and come back wherever the adapter put them; short ones stay", () => {
  const long = `"quoted" line\nnext \\ 中文 ${"x".repeat(STAND_IN_MIN_CHARS)}`;
  const { wire, restore } = withStandIns({ a: long, b: "short", c: [{ d: long }] });
  const seen = JSON.parse(wire) as { a: string; b: string; c: [{ d: string }] };
  assert.ok(seen.a.length < 10, seen.a);
  assert.equal(seen.b, "short");
  assert.ok(seen.c[0].d.length < 10);
  // What an adapter may do with a stand-in: copy it, move it, join it into a longer string.
  const body = JSON.stringify({ x: seen.a, joined: `${seen.c[0].d} + ${seen.a}`, b: seen.b });
  assert.deepEqual(JSON.parse(restore(body)), { x: long, joined: `${long} + ${long}`, b: "short" });
});

test("a request holding the marks anywhere (a read page, a short line, a key) goes without stand-ins, untouched", () => {
  const long = "y".repeat(STAND_IN_MIN_CHARS);
  for (const request of [
    { a: long, b: "what does \uE0000\uE001 mean?" },
    { a: long, b: "\uE0000\uE001".repeat(1000) },
    { a: long, "\uE0001\uE001": 1 },
  ]) {
    const { wire, restore } = withStandIns(request);
    assert.equal(wire, JSON.stringify(request));
    assert.equal(restore(wire), wire, "nothing in the body is taken for a stand-in");
  }
});

test("a lone surrogate goes out as U+FFFD, as the Lua path sent it", () => {
  const text = `abc\ud800${"z".repeat(STAND_IN_MIN_CHARS)}`;
  const { wire, restore } = withStandIns({ a: text });
  const seen = JSON.parse(wire) as { a: string };
  assert.equal(JSON.parse(restore(JSON.stringify({ a: seen.a }))).a, `abc\ufffd${"z".repeat(STAND_IN_MIN_CHARS)}`);
});

test("a body without stand-ins, or with a number no text has, is returned unchanged", () => {
  const { restore } = withStandIns({ a: "x".repeat(STAND_IN_MIN_CHARS) });
  assert.equal(restore('{"a":"plain"}'), '{"a":"plain"}');
  assert.equal(restore('{"a":"\uE0009\uE001"}'), '{"a":"\uE0009\uE001"}');
  assert.equal(withStandIns({ a: "short" }).restore('{"a":"\uE0000\uE001"}'), '{"a":"\uE0000\uE001"}');
});

test("each tool definition stands in as one string of the tools list and comes back whole", () => {
  const tools = [
    { type: "function", function: { name: "a", description: "d".repeat(300), parameters: { type: "object" } } },
    { type: "function", function: { name: "b", description: "short", parameters: { required: ["q"] } } },
  ];
  const { wire, restore } = withStandIns({ model: "m", tools, tool_choice: "auto" });
  const seen = JSON.parse(wire) as { tools: unknown[] };
  assert.ok(
    seen.tools.every((t) => typeof t === "string" && t.length < 10),
    wire,
  );
  // An OpenAI-compatible adapter copies the list into its body.
  const body = JSON.stringify({ model: "m", tools: seen.tools, tool_choice: "auto" });
  assert.deepEqual(JSON.parse(restore(body)), { model: "m", tools, tool_choice: "auto" });
  const marked = [{ type: "function", function: { name: "c", description: "\uE0020\uE003" } }];
  assert.equal(withStandIns({ tools: marked }).wire, JSON.stringify({ tools: marked }), "marks inside a tool");
});
