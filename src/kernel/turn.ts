/**
 * One input, start to finish: on_input → input event (prune + append, turn-events.ts) → pre_action →
 * request from budgeted sections (compose.ts) → tool loop → before_output → the reply joins the event →
 * delivery → after_output → memory's turnDone. Setting `ctx.response` in any stage skips straight to
 * after_output with that reply.
 *
 * A failed turn (LLM error, cancelled, shutting down) still tells its caller why, but it is not an agent
 * reply: nothing is written to the context as the agent's words, its input is marked unanswered there,
 * and before_output / after_output do not run (the `agent_output` event carries the error).
 *
 * A transient input (InjectOptions.transient: a client that keeps its own history) is recorded nowhere:
 * no prune, no event in the window, no turnDone, so nothing reaches the text log or the distiller. Its
 * prompt still has the memory sections: the agent may read its memory, it just adds nothing to it.
 */
import type { ContextReport, InputReply, TokenUsage, ToolResult } from "@homeagent/sdk";
import { errorMessage } from "../util/errors.js";
import { userZone } from "../util/time-zone.js";
import { stopMessage } from "./cancel.js";
import { composeRequest, type Notice } from "./compose.js";
import type { InputRegistry, OutputRegistry } from "./ports.js";
import { newStageContext } from "./stages.js";
import { type LoopDeps, runToolLoop, type TurnControl } from "./tool-loop.js";
import type { ToolOffer, Words } from "./tool-search.js";
import { closeTurn, type OpenedTurn, openTurn } from "./turn-events.js";
import type { ContextWindow, InputTask, MemoryContext, MutableStageContext } from "./types.js";

export interface TurnDeps extends LoopDeps {
  context: ContextWindow;
  outputs: OutputRegistry;
  inputs: InputRegistry;
  memory?: MemoryContext;
  warn: (msg: string) => void;
  notice: Notice;
  /** The running turn's tool offer by request id, for tool_search. */
  offers: Map<string, ToolOffer>;
  /** Splits tool_search queries and tool descriptions into words. */
  words: Words;
  onComposed: (report: ContextReport) => void;
  /** Told once per turn the LLM answered, with the source of its last reply (the daemon's usage meter). */
  onAnswered?: (llmSource: string) => void;
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
  toolResults: ToolResult[];
  /** The turn's event, once written (so the reply joins it). */
  opened?: OpenedTurn;
  llmSource?: string;
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
    noMemory: task.opts.noMemory || task.opts.transient || task.kind === "interrupt",
  });
  // Before on_input: a turn a plugin answers or refuses there was still asked, and is in the transcript.
  deps.bus.publish("raw_input", ctx.source, {
    requestId: ctx.requestId,
    source: ctx.source,
    channel: ctx.channel,
    text: ctx.rawMessage,
    ...(ctx.noMemory ? { noMemory: true } : {}),
    ...(task.kind === "self" ? { self: true } : {}),
    ...(task.opts.newTopic ? { newTopic: true } : {}),
    ...(task.opts.transient ? { transient: true } : {}),
  });
  await deps.stages.run("on_input", ctx, { stop });
  let outcome: Outcome;
  if (stop.aborted) outcome = failed(stopMessage(stop.reason));
  else if (ctx.response !== null) outcome = answered(ctx.response);
  else outcome = await think(deps, task, ctx, control);

  let final = outcome.text;
  if (!outcome.shortCircuited && !outcome.error) {
    ctx.finalText = final;
    await deps.stages.run("before_output", ctx, { stop });
    final = ctx.response ?? ctx.finalText;
    outcome.shortCircuited = ctx.response !== null;
  }
  const target = task.opts.outputChannel ?? task.channel;
  // A sync caller gets the reply itself; a self-task's reply is delivered only to a channel it names.
  const deliverTo = (task.reply && task.kind !== "self") || target === SELF_CHANNEL ? null : target;
  // The reply is delivered even if memory cannot record it: a storage error must not eat the answer.
  const event = outcome.opened
    ? await closeTurn(
        deps,
        task,
        outcome.opened,
        {
          final,
          error: outcome.error,
          stopped: stop.aborted,
          toolsUsed: outcome.tools,
          toolResults: outcome.toolResults,
        },
        deliverTo,
      ).catch((err) => {
        deps.warn(`${task.requestId}: the reply could not be recorded in memory: ${errorMessage(err)}`);
        return null;
      })
    : null;
  // Counted before the output is published, so whoever refreshes on agent_output sees this turn.
  if (outcome.llmSource && !outcome.error) deps.onAnswered?.(outcome.llmSource);
  // Published before it is delivered: what records it (the transcript) has it before the user does.
  deps.bus.publish("agent_output", "kernel", {
    requestId: task.requestId,
    source: task.source,
    channel: target,
    content: final,
    ...(outcome.reasoning ? { reasoningContent: outcome.reasoning } : {}),
    ...(outcome.usage ? { usage: outcome.usage } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.error && stop.aborted ? { stopped: true } : {}),
  });
  if (deliverTo) await deliver(deps, task.requestId, deliverTo, final);
  if (!outcome.error) {
    ctx.finalText = final;
    await deps.stages.run("after_output", ctx, { stop });
  }
  if (deps.memory) {
    try {
      await deps.memory.turnDone(task.requestId, event);
    } catch (err) {
      deps.warn(`${task.requestId}: memory could not take the finished turn: ${errorMessage(err)}`);
    }
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

function answered(text: string, opened?: OpenedTurn): Outcome {
  return { text, reasoning: "", usage: null, shortCircuited: true, tools: [], toolResults: [], opened };
}

function failed(message: string, opened?: OpenedTurn): Outcome {
  return {
    text: message,
    reasoning: "",
    usage: null,
    shortCircuited: false,
    error: message,
    tools: [],
    toolResults: [],
    opened,
  };
}

/** The turn took another's place in the window: from now on it is a version of that turn (the transcript). */
function replacedNews(deps: TurnDeps, ctx: MutableStageContext, replaces: string): void {
  deps.bus.publish("system", "kernel", {
    kind: "turn_replaced",
    requestId: ctx.requestId,
    channel: ctx.channel,
    replaces,
  });
}

async function think(
  deps: TurnDeps,
  task: InputTask,
  ctx: MutableStageContext,
  control: TurnControl,
): Promise<Outcome> {
  const opened = await openTurn(
    task.opts.replaces === undefined ? deps : { ...deps, onReplaced: (replaces) => replacedNews(deps, ctx, replaces) },
    task,
    ctx,
  );
  await deps.stages.run("pre_action", ctx, { stop: control.stop });
  if (control.stop.aborted) return failed(stopMessage(control.stop.reason), opened);
  if (ctx.response !== null) return answered(ctx.response, opened);

  const window = await deps.context.window();
  const { messages, offer, report } = await composeRequest(deps, {
    requestId: ctx.requestId,
    channel: ctx.channel,
    input: ctx.rawMessage,
    outputChannels: deps.outputs.names(),
    zone: timeZone(deps),
    timeline: window.filter((e) => e.id !== opened.id),
    inWindow: new Set(window.map((e) => e.id)),
    query: opened.query,
    contextMsgs: ctx.contextMsgs,
    allow: task.tools ? new Set(task.tools) : undefined,
    history: task.opts.history,
    newTopic: task.opts.newTopic === true,
  });
  deps.onComposed(report);
  deps.offers.set(ctx.requestId, offer);
  try {
    const r = await runToolLoop(deps, ctx, messages, control, offer);
    return {
      text: r.text,
      reasoning: r.reasoning,
      usage: r.usage,
      shortCircuited: r.shortCircuited,
      tools: r.toolsUsed,
      toolResults: r.toolResults,
      opened,
      llmSource: r.llmSource,
    };
  } catch (err) {
    return failed(control.stop.aborted ? stopMessage(control.stop.reason) : errorMessage(err), opened);
  } finally {
    deps.offers.delete(ctx.requestId);
  }
}

/** `core.agent.timezone`, or the system's zone when it is empty or unknown to this runtime. */
export function timeZone(deps: Pick<TurnDeps, "settings" | "warn">): string {
  const configured = deps.settings.timezone();
  const zone = userZone(configured);
  if (configured && zone !== configured) {
    deps.warn(`core.agent.timezone "${configured}" is not a known time zone; using the system's (${zone})`);
  }
  return zone;
}

async function deliver(deps: TurnDeps, requestId: string, channel: string, text: string): Promise<void> {
  if (!deps.outputs.get(channel)) {
    deps.warn(`reply to ${requestId} dropped: no output channel "${channel}" is registered`);
    return;
  }
  try {
    await deps.outputs.send(channel, { payload: text, meta: {}, type: "text", requestId, reply: true });
  } catch (err) {
    deps.warn(`output channel "${channel}" failed for ${requestId}: ${errorMessage(err)}`);
  }
}
