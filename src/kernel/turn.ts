/**
 * One input, start to finish: on_input → context → pre_action → tool loop → before_output → delivery →
 * after_output. Setting `ctx.response` in any stage skips straight to after_output with that reply.
 *
 * A failed turn (LLM error, cancelled, shutting down) still tells its caller why, but it is not an agent
 * reply: nothing is written to the context as the agent's words, its input is marked unanswered there,
 * and before_output / after_output do not run (the `agent_output` event carries the error).
 */
import type { InputReply, TokenUsage } from "@homeagent/sdk";
import type { OutputChannels } from "../io/output-channels.js";
import type { ChatMessage } from "../llm/provider.js";
import { errorMessage } from "../util/errors.js";
import { isTimeZone, systemTimeZone } from "../util/time-zone.js";
import { estimateTokens, firstThatFit, MEMORY_SHARE, messageTokens, newestThatFit, requestBudget } from "./budget.js";
import { stopMessage } from "./cancel.js";
import { buildSystemPrompt, renderTimeline, timelineRow } from "./prompt.js";
import { newStageContext } from "./stages.js";
import { type LoopDeps, runToolLoop, type TurnControl } from "./tool-loop.js";
import type { ContextWindow, InputTask, MutableStageContext } from "./types.js";

export interface TurnDeps extends LoopDeps {
  context: ContextWindow;
  outputs: OutputChannels;
  warn: (msg: string) => void;
}

/** Output channel of kernel self-tasks: nothing is delivered anywhere. */
export const SELF_CHANNEL = "_consolidation_";

interface Outcome {
  text: string;
  reasoning: string;
  usage: TokenUsage | null;
  shortCircuited: boolean;
  /** Set when the turn failed: `text` is then this message, not a reply. */
  error?: string;
  tools: string[];
  /** Id of the input in the context window, when it was written there (so the reply belongs there too). */
  inputEventId?: number;
}

export async function runTurn(deps: TurnDeps, task: InputTask, control: TurnControl): Promise<InputReply> {
  const stop = control.stop;
  const ctx = newStageContext({
    requestId: task.requestId,
    source: task.source,
    channel: task.channel,
    rawMessage: task.text,
    userId: task.opts.userId,
    groupId: task.opts.groupId,
    noMemory: task.opts.noMemory || task.kind === "interrupt",
  });
  await deps.stages.run("on_input", ctx, { stop });
  let outcome: Outcome;
  if (stop.aborted) outcome = failed(stopMessage(stop.reason));
  else if (ctx.response !== null) outcome = answered(ctx.response);
  else outcome = await think(deps, ctx, control);

  let final = outcome.text;
  if (!outcome.shortCircuited && !outcome.error) {
    ctx.finalText = final;
    await deps.stages.run("before_output", ctx, { stop });
    final = ctx.response ?? ctx.finalText;
    outcome.shortCircuited = ctx.response !== null;
  }
  record(deps, ctx.rawMessage, task, outcome, final, stop);
  await deliver(deps, task, final);
  deps.bus.publish("agent_output", "kernel", {
    requestId: task.requestId,
    source: task.source,
    channel: task.opts.outputChannel ?? task.channel,
    content: final,
    ...(outcome.reasoning ? { reasoningContent: outcome.reasoning } : {}),
    ...(outcome.usage ? { usage: outcome.usage } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
  });
  if (!outcome.error) {
    ctx.finalText = final;
    await deps.stages.run("after_output", ctx, { stop });
  }
  return {
    requestId: task.requestId,
    content: final,
    ...(outcome.reasoning ? { reasoningContent: outcome.reasoning } : {}),
    ...(outcome.usage ? { usage: outcome.usage } : {}),
    shortCircuited: outcome.shortCircuited,
    ...(outcome.error ? { error: outcome.error } : {}),
  };
}

function answered(text: string, inputEventId?: number): Outcome {
  return { text, reasoning: "", usage: null, shortCircuited: true, tools: [], inputEventId };
}

function failed(message: string, inputEventId?: number): Outcome {
  return { text: message, reasoning: "", usage: null, shortCircuited: false, error: message, tools: [], inputEventId };
}

/** The window holds at most `core.agent.max_context_size` events; each append first makes room for itself. */
function windowSize(deps: TurnDeps): number {
  return Math.max(1, deps.settings.maxContextSize());
}

async function think(deps: TurnDeps, ctx: MutableStageContext, control: TurnControl): Promise<Outcome> {
  deps.bus.publish("raw_input", ctx.source, {
    requestId: ctx.requestId,
    source: ctx.source,
    channel: ctx.channel,
    text: ctx.rawMessage,
  });
  // Room for the input, then the timeline of what came before it.
  const keep = windowSize(deps);
  deps.context.prune(ctx.rawMessage, keep - 1);
  const recent = deps.context.recent(keep - 1);
  const inputEventId = ctx.noMemory
    ? undefined
    : deps.context.append({
        ts: Date.now(),
        role: "user",
        source: ctx.source,
        channel: ctx.channel,
        text: ctx.rawMessage,
      });
  await deps.stages.run("pre_action", ctx, { stop: control.stop });
  if (control.stop.aborted) return failed(stopMessage(control.stop.reason), inputEventId);
  if (ctx.response !== null) return answered(ctx.response, inputEventId);

  const zone = timeZone(deps);
  const system: ChatMessage = {
    role: "system",
    content: buildSystemPrompt({
      systemPrompt: deps.settings.systemPrompt(),
      personalPrompt: deps.settings.personalPrompt(),
      channel: ctx.channel,
      outputChannels: deps.outputs.names(),
      now: new Date(),
      zone,
    }),
  };
  const input: ChatMessage = { role: "user", content: ctx.rawMessage };
  // Fixed parts first (system prompt, tool definitions, the input), then memory within its share, then as
  // much of the timeline as still fits, newest first.
  const budget = requestBudget(deps.llm.contextWindow());
  const fixed = messageTokens(system) + messageTokens(input) + estimateTokens(JSON.stringify(deps.tools.specs()));
  const memory = firstThatFit(ctx.contextMsgs, Math.floor(budget * MEMORY_SHARE), messageTokens);
  const memoryTokens = memory.reduce((sum, m) => sum + messageTokens(m), 0);
  const timelineBudget = budget - fixed - memoryTokens - messageTokens({ role: "system", content: "" });
  const rows = recent.map((e) => timelineRow(e, zone));
  const timeline = renderTimeline(
    newestThatFit(rows, timelineBudget, (row) => estimateTokens(row) + 1),
    zone,
  );
  const messages: ChatMessage[] = [
    system,
    ...(timeline ? [{ role: "system" as const, content: timeline }] : []),
    ...memory.map((m) => ({ role: m.role, content: m.content })),
    input,
  ];
  try {
    const r = await runToolLoop(deps, ctx, messages, control);
    return {
      text: r.text,
      reasoning: r.reasoning,
      usage: r.usage,
      shortCircuited: r.shortCircuited,
      tools: r.toolsUsed,
      inputEventId,
    };
  } catch (err) {
    return failed(control.stop.aborted ? stopMessage(control.stop.reason) : errorMessage(err), inputEventId);
  }
}

/** Writes the turn's end to the context window: the reply, or why its input got none. */
function record(deps: TurnDeps, query: string, task: InputTask, outcome: Outcome, final: string, stop: AbortSignal) {
  if (outcome.inputEventId === undefined) return;
  if (outcome.error) {
    const reason = stop.aborted ? "cancelled before a reply" : "the reply failed with an error";
    deps.context.markUnanswered(outcome.inputEventId, reason);
    return;
  }
  deps.context.append(
    { ts: Date.now(), role: "agent", source: "agent", channel: task.channel, text: final, tools: outcome.tools },
    { query, keep: windowSize(deps) },
  );
}

/** `core.agent.timezone`, or the system's zone when it is empty or unknown to this runtime. */
function timeZone(deps: TurnDeps): string {
  const configured = deps.settings.timezone();
  if (!configured) return systemTimeZone();
  if (isTimeZone(configured)) return configured;
  deps.warn(`core.agent.timezone "${configured}" is not a known time zone; using the system's (${systemTimeZone()})`);
  return systemTimeZone();
}

async function deliver(deps: TurnDeps, task: InputTask, text: string): Promise<void> {
  if (task.reply) return;
  const channel = task.opts.outputChannel ?? task.channel;
  if (channel === SELF_CHANNEL) return;
  if (!deps.outputs.get(channel)) {
    deps.warn(`reply to ${task.requestId} dropped: no output channel "${channel}" is registered`);
    return;
  }
  try {
    await deps.outputs.send(channel, { payload: text, meta: {}, type: "text", requestId: task.requestId });
  } catch (err) {
    deps.warn(`output channel "${channel}" failed for ${task.requestId}: ${errorMessage(err)}`);
  }
}
