/**
 * capToolCalls on its own: the calls a provider counted but did not read (dropped_tool_calls) are among
 * those the model is told were not run; the full loop is tested in tool-loop.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CompletionResponse } from "../llm/provider.js";
import { capToolCalls } from "./tool-cap.js";

function reply(calls: number, dropped?: number): CompletionResponse {
  return {
    content: "",
    reasoning_content: "",
    finish_reason: "tool_calls",
    token_usage: null,
    tool_calls: Array.from({ length: calls }, (_, i) => ({ id: `c${i}`, name: "x", arguments: { i } })),
    ...(dropped === undefined ? {} : { dropped_tool_calls: dropped }),
  };
}

test("calls up to the cap run and nothing stands in for none", () => {
  const round = capToolCalls(reply(32), 32);
  assert.equal(round.run.length, 32);
  assert.equal(round.over, undefined);
});

test("the calls past the cap, read or only counted, are one stand-in with one result", () => {
  const round = capToolCalls(reply(1024, 118_976), 32);
  assert.equal(round.run.length, 32);
  assert.deepEqual(round.over?.call, { id: "c32", name: "x", arguments: {} });
  assert.equal(round.over?.result.toolCallId, "c32");
  assert.equal(round.over?.result.status, "denied");
  assert.match(round.over?.result.content ?? "", /^error: 119968 tool calls over the limit of 32 were not run/);
});
