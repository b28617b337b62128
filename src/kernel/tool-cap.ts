/**
 * The calls of one LLM reply as the round runs them. The cap (`core.agent.max_tool_calls_per_round`): a
 * model (or a hostile server) asking for 20,000 calls at once must not run them all, nor grow the transcript
 * by 20,000 calls and results. The calls past the cap stay out of the transcript but one, which stands for
 * all of them: it keeps the name of the first one, loses its arguments, and gets the one result that says
 * how many were not run — so every call in the assistant message still has its result, as providers require.
 * And ids: servers may send none, or one id for two calls, but a result refers to its call by id, plugins
 * drop calls by id and providers reject an id answered twice, so every call of the round gets an id no
 * other call of the round has (the server's own when no other call shares it).
 */
import type { ToolCall, ToolResult } from "@homeagent/sdk";
import { toToolCall } from "./llm-shapes.js";
import type { CompletionResponse } from "./llm-spec.js";

export interface CappedRound {
  /** The calls to run, at most the cap. */
  run: ToolCall[];
  /** The stand-in for the calls past the cap and its result; absent when none was left out. */
  over?: { call: ToolCall; result: ToolResult };
}

/** The calls of `reply` to run, and the stand-in for the rest (including calls the provider left unread). */
export function capToolCalls(reply: CompletionResponse, max: number): CappedRound {
  const calls = reply.tool_calls;
  const count = Math.max(0, calls.length - max) + (reply.dropped_tool_calls ?? 0);
  // Calls the provider only counted have no name of their own: the stand-in borrows the last read one's.
  const past = calls[max];
  const named = past ?? calls.at(-1);
  const standIn = count > 0 && named ? [{ id: past?.id ?? "", name: named.name, arguments: {} }] : [];
  const run = withUniqueIds([...calls.slice(0, max).map(toToolCall), ...standIn]);
  const call = standIn.length > 0 ? run.pop() : undefined;
  if (!call) return { run };
  return {
    run,
    over: { call, result: { toolCallId: call.id, name: call.name, status: "denied", content: note(count, max) } },
  };
}

/** `calls`, each with an empty id or one that another call has too given a fresh id that no call has. */
function withUniqueIds(calls: ToolCall[]): ToolCall[] {
  const uses = new Map<string, number>();
  for (const { id } of calls) uses.set(id, (uses.get(id) ?? 0) + 1);
  const own = (id: string) => id !== "" && uses.get(id) === 1;
  const taken = new Set(calls.map((c) => c.id).filter(own));
  let next = 0;
  return calls.map((call) => {
    if (own(call.id)) return call;
    let id = `call_${next++}`;
    while (taken.has(id)) id = `call_${next++}`;
    taken.add(id);
    return { ...call, id };
  });
}

function note(count: number, max: number): string {
  const what = count === 1 ? "1 tool call over the limit of" : `${count} tool calls over the limit of`;
  return (
    `error: ${what} ${max} ${count === 1 ? "was" : "were"} not run (core.agent.max_tool_calls_per_round). ` +
    `Ask for at most ${max} at once; call the rest in your next reply if they are still needed. ` +
    `${count} 个工具调用超出每轮 ${max} 个的上限，未执行；如仍需要，请在下一轮再调用。`
  );
}
