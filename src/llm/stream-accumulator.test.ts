import assert from "node:assert/strict";
import { test } from "node:test";
import type { StreamChunk } from "./provider.js";
import { StreamAccumulator } from "./stream-accumulator.js";

function chunk(fields: Partial<StreamChunk>): StreamChunk {
  return { content: "", reasoning_content: "", done: false, usage: null, tool_calls: [], ...fields };
}

function frag(stream_index: number, raw_arguments: string, name = "", id = "") {
  return { id, name, raw_arguments, stream_index };
}

test("fragments are bucketed by stream_index, nameless calls dropped, arguments parsed at the end", () => {
  const acc = new StreamAccumulator();
  acc.add(chunk({ reasoning_content: "think", content: "Hel" }));
  acc.add(chunk({ content: "lo", tool_calls: [frag(1, "", "second", "id2"), frag(0, '{"a"', "first", "id1")] }));
  acc.add(chunk({ tool_calls: [frag(1, "not json"), frag(0, ":1}"), frag(2, "{}")] }));
  const usage = {
    prompt: 1,
    completion: 2,
    total: 3,
    cache_read: 0,
    cache_miss: 1,
    cache_reported: true,
    reasoning_tokens: 0,
  };
  acc.add(chunk({ finish_reason: "tool_calls", usage }));
  assert.deepEqual(acc.result(), {
    content: "Hello",
    reasoning_content: "think",
    finish_reason: "tool_calls",
    token_usage: usage,
    tool_calls: [
      { id: "id1", name: "first", arguments: { a: 1 } },
      { id: "id2", name: "second", arguments: {}, raw_arguments: "not json" },
    ],
  });
});

test("a partial reply keeps only tool calls known to be complete", () => {
  const acc = new StreamAccumulator();
  acc.add(chunk({ content: "Working" }));
  acc.add(chunk({ tool_calls: [frag(0, "", "no_args", "a"), frag(1, '{"path":"/tmp/x"}', "read", "b")] }));
  acc.add(chunk({ tool_calls: [frag(2, '{"cmd":"rm -rf /tmp/cach', "shell", "c")] }));
  const partial = acc.partial();
  assert.equal(partial.finish_reason, "interrupted");
  assert.equal(partial.content, "Working");
  assert.deepEqual(
    partial.tool_calls.map((c) => c.name),
    ["no_args", "read"],
  );
});

test("hasContent ignores reasoning alone", () => {
  const acc = new StreamAccumulator();
  acc.add(chunk({ reasoning_content: "hmm" }));
  assert.equal(acc.hasContent(), false);
  acc.add(chunk({ tool_calls: [frag(0, "", "x")] }));
  assert.equal(acc.hasContent(), true);
});
