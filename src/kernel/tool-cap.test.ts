/**
 * capToolCalls on its own: the calls a provider counted but did not read (dropped_tool_calls) are among
 * those the model is told were not run, and every call of a round has an id no other call of it has; the
 * full loop is tested in tool-loop.test.ts, and here where ids meet stage handlers and the transcript.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import type { CompletionRequest, CompletionResponse, UnifiedToolCall } from "./llm-spec.js";
import { capToolCalls } from "./tool-cap.js";
import type { LLMClient } from "./types.js";

function reply(calls: number, dropped?: number): CompletionResponse {
  return withCalls(
    Array.from({ length: calls }, (_, i) => ({ id: `c${i}`, name: "x", arguments: { i } })),
    dropped,
  );
}

function withCalls(tool_calls: UnifiedToolCall[], dropped?: number): CompletionResponse {
  return {
    content: "",
    reasoning_content: "",
    finish_reason: tool_calls.length > 0 ? "tool_calls" : "stop",
    token_usage: null,
    tool_calls,
    ...(dropped === undefined ? {} : { dropped_tool_calls: dropped }),
  };
}

const ids = (calls: Array<{ id: string }>) => calls.map((c) => c.id);

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

test("calls only counted are told of even when the calls read fit under the cap", () => {
  const round = capToolCalls(reply(5, 3), 32);
  assert.deepEqual(ids(round.run), ["c0", "c1", "c2", "c3", "c4"]);
  assert.ok(round.over, "a stand-in tells the model");
  assert.equal(round.over.call.name, "x");
  assert.ok(!ids(round.run).includes(round.over.call.id), "the stand-in has an id of its own");
  assert.equal(round.over.result.toolCallId, round.over.call.id);
  assert.match(round.over.result.content, /^error: 3 tool calls over the limit of 32 were not run/);
});

test("a server's id is kept when no other call has it; empty and shared ids become fresh ones", () => {
  const call = (id: string, i: number): UnifiedToolCall => ({ id, name: "x", arguments: { i } });
  const round = capToolCalls(withCalls(["call_1", "", "dup", "dup", "call_0", "dup"].map(call)), 4);
  const all = [...ids(round.run), round.over?.call.id ?? ""];
  assert.equal(new Set(all).size, 5, `every id once: ${all}`);
  assert.ok(
    all.every((id) => id !== "" && id !== "dup"),
    `no empty or shared id: ${all}`,
  );
  assert.equal(all[0], "call_1");
  assert.equal(all[4], "call_0", "the stand-in keeps the first left-out call's own id");
  assert.deepEqual(
    round.run.map((c) => c.arguments),
    [{ i: 0 }, { i: 1 }, { i: 2 }, { i: 3 }],
  );
});

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** An LLM that answers `replies` in turn and then "done", recording its requests. */
function scripted(...replies: CompletionResponse[]): LLMClient & { requests: CompletionRequest[] } {
  const requests: CompletionRequest[] = [];
  return {
    requests,
    hasSources: () => true,
    contextWindow: () => 0,
    stream: async (req) => {
      requests.push(structuredClone(req));
      return replies.shift() ?? { ...withCalls([]), content: "done" };
    },
  };
}

/** An agent on `llm` (kept in `h`) with an echo tool, and the arguments of every echo run. */
function echoAgent(llm: LLMClient): { agent: Harness["agent"]; settings: Harness["settings"]; runs: string[] } {
  h = startAgent({ llm });
  const runs: string[] = [];
  h.agent.tools.register("demo", { name: "echo", description: "", parameters: { type: "object" } }, (a) => {
    runs.push(JSON.stringify(a));
    return "ok";
  });
  return { agent: h.agent, settings: h.settings, runs };
}

test("a server's id shared by two calls: every call of the transcript is answered exactly once", async () => {
  const echo = (n: number): UnifiedToolCall => ({ id: "dup", name: "echo", arguments: { n } });
  const llm = scripted(withCalls([echo(1), echo(2), echo(3)]));
  const { agent, settings, runs } = echoAgent(llm);
  settings.callsPerRound = 2;
  const out = await agent.injectInputSync("test", "test", "go");
  assert.equal(out.content, "done");
  assert.deepEqual(runs, ['{"n":1}', '{"n":2}']);
  const next = llm.requests[1]?.messages ?? [];
  const asked = ids(next.find((m) => m.role === "assistant")?.tool_calls ?? []);
  const answered = next.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
  assert.equal(new Set(asked).size, 3, `three calls, three ids: ${asked}`);
  assert.deepEqual(answered, asked);
});

test("a stage handler dropping one of two calls that shared an id drops only that one", async () => {
  const { agent, runs } = echoAgent(
    scripted(
      withCalls([
        { id: "dup", name: "echo", arguments: { n: 1 } },
        { id: "dup", name: "echo", arguments: { n: 2, drop: true } },
      ]),
    ),
  );
  agent.stages.allowAnyToolCalls("guard", true);
  agent.stages.register("guard", "post_action", (ctx) => {
    ctx.toolCalls = ctx.toolCalls.filter((c) => c.arguments.drop !== true);
  });
  assert.equal((await agent.injectInputSync("test", "test", "go")).content, "done");
  assert.deepEqual(runs, ['{"n":1}']);
});
