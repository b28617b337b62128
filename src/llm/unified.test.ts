/**
 * Adapter output is checked, not trusted: a whole reply (like a stream, stream-accumulator.ts) is read with
 * at most MAX_TOOL_CALLS_PER_REPLY tool calls, and the rest are counted so the model can be told.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_TOOL_CALLS_PER_REPLY } from "./provider.js";
import { toResponse } from "./unified.js";

test("a whole reply keeps a bounded number of tool calls and counts the rest", () => {
  const calls = Array.from({ length: 5000 }, (_, i) => ({ id: `c${i}`, name: "x", arguments: { i } }));
  const reply = toResponse({ content: "", tool_calls: calls });
  assert.equal(reply.tool_calls.length, MAX_TOOL_CALLS_PER_REPLY);
  assert.equal(reply.dropped_tool_calls, 5000 - MAX_TOOL_CALLS_PER_REPLY);
  assert.deepEqual(reply.tool_calls[3], { id: "c3", name: "x", arguments: { i: 3 } });
  assert.equal(toResponse({ tool_calls: calls.slice(0, 2) }).dropped_tool_calls, undefined);
});

test("calls without a name in a whole reply take no call's place", () => {
  const nameless = Array.from({ length: 1100 }, () => ({ id: "", name: "", arguments: {} }));
  const named = Array.from({ length: 5 }, (_, i) => ({ id: `r${i}`, name: "echo", arguments: {} }));
  const reply = toResponse({ tool_calls: [...nameless, ...named, "not a call"] });
  assert.deepEqual(
    reply.tool_calls.map((c) => c.id),
    ["r0", "r1", "r2", "r3", "r4"],
  );
  assert.equal(reply.dropped_tool_calls, undefined);
});
