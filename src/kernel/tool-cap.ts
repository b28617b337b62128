/**
 * The cap on tool calls run from one LLM reply (`core.agent.max_tool_calls_per_round`): a model (or a
 * hostile server) asking for 20,000 calls at once must not run them all, nor grow the transcript by 20,000
 * calls and results. The calls past the cap stay out of the transcript but one, which stands for all of
 * them: it keeps its id and name, loses its arguments, and gets the one result that says how many were not
 * run — so every call in the assistant message still has its result, as providers require.
 */
import type { ToolCall, ToolResult } from "@homeagent/sdk";
import type { CompletionResponse } from "../llm/provider.js";
import { toToolCall } from "./llm-shapes.js";

export interface CappedRound {
  /** The calls to run, at most the cap. */
  run: ToolCall[];
  /** The stand-in for the calls past the cap and its result; absent when none was left out. */
  over?: { call: ToolCall; result: ToolResult };
}

/** The calls of `reply` to run, and the stand-in for the rest (including calls the provider left unread). */
export function capToolCalls(reply: CompletionResponse, max: number): CappedRound {
  const calls = reply.tool_calls;
  const run = calls.slice(0, max).map(toToolCall);
  const first = calls[max];
  if (!first) return { run };
  const count = calls.length - max + (reply.dropped_tool_calls ?? 0);
  const call: ToolCall = { id: first.id, name: first.name, arguments: {} };
  return {
    run,
    over: { call, result: { toolCallId: call.id, name: call.name, status: "denied", content: note(count, max) } },
  };
}

function note(count: number, max: number): string {
  const what = count === 1 ? "1 tool call over the limit of" : `${count} tool calls over the limit of`;
  return (
    `error: ${what} ${max} ${count === 1 ? "was" : "were"} not run (core.agent.max_tool_calls_per_round). ` +
    `Ask for at most ${max} at once; call the rest in your next reply if they are still needed. ` +
    `${count} 个工具调用超出每轮 ${max} 个的上限，未执行；如仍需要，请在下一轮再调用。`
  );
}
