import assert from "node:assert/strict";
import { test } from "node:test";
import type { StreamChunk } from "../kernel/llm-spec.js";
import { MAX_TOOL_CALLS_PER_REPLY } from "./provider.js";
import { MAX_DROPPED_INDEXES, StreamAccumulator } from "./stream-accumulator.js";

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

test("hasContent ignores blank text and argument bytes of no call: a stall then tries the next source", () => {
  const acc = new StreamAccumulator();
  acc.add(chunk({ content: " \n\t", tool_calls: [frag(3, " ")] }));
  acc.add(chunk({ tool_calls: [frag(3, '{"a":1}')] }));
  assert.equal(acc.hasContent(), false);
  assert.deepEqual(acc.partial().tool_calls, []);
  acc.add(chunk({ content: "." }));
  assert.equal(acc.hasContent(), true);
});

test("nameless fragments take no call's place: named calls after 1,024 of them are kept", () => {
  const acc = new StreamAccumulator();
  for (let i = 0; i < MAX_TOOL_CALLS_PER_REPLY; i++) acc.add(chunk({ tool_calls: [frag(i, " ")] }));
  for (let i = 0; i < 5; i++) acc.add(chunk({ tool_calls: [frag(5000 + i, "{}", "echo", `r${i}`)] }));
  const reply = acc.result();
  assert.deepEqual(
    reply.tool_calls.map((c) => c.id),
    ["r0", "r1", "r2", "r3", "r4"],
  );
  assert.equal(reply.dropped_tool_calls, undefined);
});

test("a call past the bound whose every fragment repeats its name is counted once", () => {
  const acc = new StreamAccumulator();
  const total = MAX_TOOL_CALLS_PER_REPLY + 76;
  for (let i = 0; i < total; i++) {
    for (const piece of ['{"n":', `${i}`, "}"]) acc.add(chunk({ tool_calls: [frag(i, piece, "echo", `id${i}`)] }));
  }
  const reply = acc.result();
  assert.equal(reply.tool_calls.length, MAX_TOOL_CALLS_PER_REPLY);
  assert.deepEqual(reply.tool_calls[7], { id: "id7", name: "echo", arguments: { n: 7 } });
  assert.equal(reply.dropped_tool_calls, 76);
});

test("call ids are kept as the server sent them, none made up that could equal another's", () => {
  const acc = new StreamAccumulator();
  acc.add(chunk({ tool_calls: [frag(0, "{}", "echo", "call_1"), frag(1, "{}", "echo")] }));
  assert.deepEqual(
    acc.result().tool_calls.map((c) => c.id),
    ["call_1", ""],
  );
});

test("a stream of sparse, huge tool-call indexes keeps a bounded number of calls and counts the rest", () => {
  const acc = new StreamAccumulator();
  const total = 150_000;
  for (let i = 0; i < total; i++) acc.add(chunk({ tool_calls: [frag(i * 1_000_003 + 7, "{}", "x", `c${i}`)] }));
  // Nameless fragments at new indexes would never become calls: they are neither kept nor counted.
  for (let i = 0; i < 1000; i++) acc.add(chunk({ tool_calls: [frag(-1 - i, "{}")] }));
  const reply = acc.result();
  assert.equal(reply.tool_calls.length, MAX_TOOL_CALLS_PER_REPLY);
  // Counting distinct calls takes memory: past a bound the count is a lower bound.
  assert.equal(reply.dropped_tool_calls, MAX_DROPPED_INDEXES);
  assert.deepEqual(reply.tool_calls[1], { id: "c1", name: "x", arguments: {} });
  // Fragments of a call already kept still land, however many calls were dropped since.
  acc.add(chunk({ tool_calls: [frag(7, "", "", "")] }));
  assert.equal(acc.result().tool_calls.length, MAX_TOOL_CALLS_PER_REPLY);
});

test("a partial reply with more calls than a spread of arguments can take does not throw", () => {
  const acc = new StreamAccumulator();
  for (let i = 0; i < 150_000; i++) acc.add(chunk({ tool_calls: [frag(i, "", "x")] }));
  const partial = acc.partial();
  assert.equal(partial.finish_reason, "interrupted");
  assert.equal(partial.tool_calls.length, MAX_TOOL_CALLS_PER_REPLY - 1, "the last call may be cut: it is left out");
  assert.equal(partial.dropped_tool_calls, MAX_DROPPED_INDEXES);
});
