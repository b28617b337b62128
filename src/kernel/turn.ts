/**
 * One input, start to finish: on_input → context → pre_action → tool loop → before_output → delivery →
 * after_output. Setting `ctx.response` in any stage skips straight to after_output with that reply.
 */
import type { InputReply, TokenUsage } from "@homeagent/sdk";
import type { OutputChannels } from "../io/output-channels.js";
import type { ChatMessage } from "../llm/provider.js";
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
  error?: string;
  tools: string[];
  /** The input was written to the context window, so the reply belongs there too. */
  inContext: boolean;
}

export async function runTurn(deps: TurnDeps, task: InputTask, control: TurnControl): Promise<InputReply> {
  const ctx = newStageContext({
    requestId: task.requestId,
    source: task.source,
    channel: task.channel,
    rawMessage: task.text,
    userId: task.opts.userId,
    groupId: task.opts.groupId,
    noMemory: task.opts.noMemory || task.kind === "interrupt",
  });
  await deps.stages.run("on_input", ctx);
  const outcome: Outcome = ctx.response !== null ? answered(ctx.response) : await think(deps, ctx, control);

  let final = outcome.text;
  if (!outcome.shortCircuited) {
    ctx.finalText = final;
    await deps.stages.run("before_output", ctx);
    final = ctx.response ?? ctx.finalText;
    outcome.shortCircuited = ctx.response !== null;
  }
  if (outcome.inContext) {
    deps.context.append({
      ts: Date.now(),
      role: "agent",
      source: "agent",
      channel: task.channel,
      text: final,
      tools: outcome.tools,
    });
  }
  await deliver(deps, task, final);
  deps.bus.publish("agent_output", "kernel", {
    request_id: task.requestId,
    source: task.source,
    channel: task.opts.outputChannel ?? task.channel,
    content: final,
    ...(outcome.reasoning ? { reasoning_content: outcome.reasoning } : {}),
    ...(outcome.usage ? { usage: outcome.usage } : {}),
  });
  ctx.finalText = final;
  await deps.stages.run("after_output", ctx);
  return {
    requestId: task.requestId,
    content: final,
    ...(outcome.reasoning ? { reasoningContent: outcome.reasoning } : {}),
    ...(outcome.usage ? { usage: outcome.usage } : {}),
    shortCircuited: outcome.shortCircuited,
    ...(outcome.error ? { error: outcome.error } : {}),
  };
}

function answered(text: string, inContext = false): Outcome {
  return { text, reasoning: "", usage: null, shortCircuited: true, tools: [], inContext };
}

async function think(deps: TurnDeps, ctx: MutableStageContext, control: TurnControl): Promise<Outcome> {
  deps.bus.publish("raw_input", ctx.source, {
    request_id: ctx.requestId,
    source: ctx.source,
    channel: ctx.channel,
    text: ctx.rawMessage,
  });
  const keep = Math.max(1, deps.settings.maxContextSize());
  deps.context.prune(ctx.rawMessage, keep - 1);
  const recent = deps.context.recent(keep - 1);
  const inContext = !ctx.noMemory;
  if (inContext) {
    deps.context.append({
      ts: Date.now(),
      role: "user",
      source: ctx.source,
      channel: ctx.channel,
      text: ctx.rawMessage,
    });
  }
  await deps.stages.run("pre_action", ctx);
  if (ctx.response !== null) return answered(ctx.response, inContext);

  const system: ChatMessage = {
    role: "system",
    content: buildSystemPrompt({
      systemPrompt: deps.settings.systemPrompt(),
      personalPrompt: deps.settings.personalPrompt(),
      channel: ctx.channel,
      outputChannels: deps.outputs.names(),
      now: new Date(),
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
  const timeline = renderTimeline(newestThatFit(recent, timelineBudget, (e) => estimateTokens(timelineRow(e)) + 1));
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
      inContext,
    };
  } catch (err) {
    const message = control.stop.aborted ? stopMessage(control.stop.reason) : errorText(err);
    return { text: message, reasoning: "", usage: null, shortCircuited: false, error: message, tools: [], inContext };
  }
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
    deps.warn(`output channel "${channel}" failed for ${task.requestId}: ${errorText(err)}`);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
