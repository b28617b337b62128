/**
 * ReplyBudget counts what a reply costs the daemon, not only its text: hostile review finding 5 sent
 * 120,000 tiny tool calls, a few bytes of text each, and reached 830 MB before any limit noticed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StreamChunk } from "../kernel/llm-spec.js";
import { CALL_OVERHEAD_BYTES, ReplyBudget } from "./reply-budget.js";

const MiB = 1024 * 1024;

function calls(...indexes: number[]): StreamChunk {
  return {
    content: "",
    reasoning_content: "",
    done: false,
    usage: null,
    tool_calls: indexes.map((i) => ({ id: "", name: "x", raw_arguments: "{}", stream_index: i })),
  };
}

test("a reply of 120,000 tiny tool calls is cut by the size limit", () => {
  const budget = new ReplyBudget(4 * MiB);
  let taken = 0;
  for (let i = 0; i < 120_000 && !budget.cut; i++) {
    const kept = budget.take(calls(i));
    taken += kept.tool_calls.length;
  }
  assert.equal(budget.cut, true);
  assert.ok(taken < (4 * MiB) / CALL_OVERHEAD_BYTES, `${taken} calls got through`);
  assert.match(budget.notice().content, /\[reply cut: larger than 4 MiB \(core\.llm\.max_response_bytes\)\]/);
});

test("a call costs its overhead once, however many fragments its arguments come in", () => {
  const budget = new ReplyBudget(CALL_OVERHEAD_BYTES + 3 + 1000);
  for (let i = 0; i < 1000; i++) {
    const kept = budget.take({ ...calls(7), tool_calls: [{ id: "", name: "", raw_arguments: "a", stream_index: 7 }] });
    assert.equal(kept.tool_calls.length, 1);
  }
  assert.equal(budget.cut, false);
  budget.take(calls(7));
  assert.equal(budget.cut, false, "the name and arguments of the same call fit: 3 bytes");
  budget.take(calls(8));
  assert.equal(budget.cut, true, "a second call does not");
});
