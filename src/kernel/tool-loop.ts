/**
 * runToolLoop(): the LLM/tool loop of one input. post_action → [before_toolcall → execute → after_toolcall]
 * → next LLM round, until the model stops calling tools, every call is refused, a handler answers
 * instead, a reply was cut at its size limit, or `core.agent.max_tool_turns` is reached. Every request
 * sends exactly the turn's offered tool definitions (tool-search.ts), which tool_search may grow between
 * rounds; a call outside a self-task's allowlist is refused without running, and so are the calls of one
 * reply past `core.agent.max_tool_calls_per_round` (tool-cap.ts).
 */
import type { TokenUsage, ToolCall, ToolResult } from "@homeagent/sdk";
import { HomeAgentError } from "../util/errors.js";
import { fitToBudget, pruneForRetry, requestBudget } from "./budget.js";
import { linkAbort } from "./cancel.js";
import { DeltaPublisher } from "./deltas.js";
import { type InterruptQueue, interruptMessage } from "./interrupts.js";
import { addUsage, toTokenUsage, toWireToolCall } from "./llm-shapes.js";
import { type ChatMessage, type CompletionResponse, isContextTooLong, type ToolSpec } from "./llm-spec.js";
import type { KernelBus } from "./ports.js";
import type { StageHost } from "./stages.js";
import { type CappedRound, capToolCalls } from "./tool-cap.js";
import type { ToolOffer } from "./tool-search.js";
import type { ToolOutcome, ToolRegistry } from "./tools.js";
import type { AgentSettings, LLMClient, MutableStageContext } from "./types.js";

export interface LoopDeps {
  llm: LLMClient;
  tools: ToolRegistry;
  stages: StageHost;
  bus: KernelBus;
  settings: AgentSettings;
}

/** Per-turn control shared with the Agent, so an interrupt can cancel the LLM call in flight. */
export interface TurnControl {
  /** Ends the turn: the daemon is stopping or the input was cancelled; its reason says which. */
  stop: AbortSignal;
  interrupts: InterruptQueue;
  llmAbort: AbortController | null;
  /** The LLM source the input asked for first. */
  llmSource?: string;
  /** A self-task's own bound on tool rounds; the setting still caps it. */
  maxToolTurns?: number;
}

export interface LoopResult {
  text: string;
  reasoning: string;
  usage: TokenUsage | null;
  toolsUsed: string[];
  /** Every call that ran (status ok or error), in order, as the model read it. */
  toolResults: ToolResult[];
  /** A stage handler set `ctx.response`. */
  shortCircuited: boolean;
  /** The LLM source of the last reply, when the LLM client names it. */
  llmSource?: string;
}

class InterruptedCall extends HomeAgentError {}

export async function runToolLoop(
  deps: LoopDeps,
  ctx: MutableStageContext,
  messages: ChatMessage[],
  control: TurnControl,
  offer: ToolOffer,
): Promise<LoopResult> {
  const toolsUsed: string[] = [];
  const ran: ToolResult[] = [];
  const maxTurns = Math.min(deps.settings.maxToolTurns(), control.maxToolTurns ?? Number.POSITIVE_INFINITY);
  let usage: TokenUsage | null = null;
  let llmSource: string | undefined;
  const end = (text: string, reasoning: string, shortCircuited = false): LoopResult => ({
    text,
    reasoning,
    usage,
    toolsUsed,
    toolResults: ran,
    shortCircuited,
    ...(llmSource === undefined ? {} : { llmSource }),
  });
  for (let turn = 0; ; turn++) {
    control.stop.throwIfAborted();
    if (turn >= maxTurns) {
      return end(
        `Stopped: tool execution exceeded ${maxTurns} turns (core.agent.max_tool_turns). 工具调用超过 ${maxTurns} 轮上限，已停止；可以让我继续，或调高 core.agent.max_tool_turns。`,
        "",
      );
    }
    for (const i of control.interrupts.drain()) messages.push({ role: "system", content: interruptMessage(i) });

    let reply: CompletionResponse;
    try {
      reply = await callLLM(deps, ctx, messages, control, offer);
    } catch (err) {
      if (err instanceof InterruptedCall) {
        turn--;
        continue;
      }
      throw err;
    }
    const roundUsage = toTokenUsage(reply.token_usage);
    usage = addUsage(usage, roundUsage);
    llmSource = reply.source ?? llmSource;

    ctx.llmText = reply.content;
    ctx.reasoningContent = reply.reasoning_content;
    ctx.tokenUsage = roundUsage;
    // A reply cut at its size limit ends the turn with its text and the note: its calls may be cut too.
    const round: CappedRound = reply.cut ? { run: [] } : capToolCalls(reply, deps.settings.maxToolCallsPerRound());
    ctx.toolCalls = round.run;
    ctx.phase = "intermediate";
    await deps.stages.run("post_action", ctx, { stop: control.stop });
    control.stop.throwIfAborted();
    if (ctx.response !== null) return end(ctx.response ?? "", "", true);

    const calls = ctx.toolCalls;
    deps.bus.publish("agent_llm_chain", "kernel", {
      requestId: ctx.requestId,
      content: ctx.llmText,
      reasoning: ctx.reasoningContent,
      toolCalls: calls,
      phase: "intermediate",
      turn,
      usage: roundUsage,
    });
    if (ctx.reasoningContent) {
      deps.bus.publish("reasoning", "kernel", { requestId: ctx.requestId, content: ctx.reasoningContent });
    }
    if (calls.length === 0 || reply.cut) return end(ctx.llmText, ctx.reasoningContent);

    messages.push({
      role: "assistant",
      content: ctx.llmText,
      ...(ctx.reasoningContent ? { reasoning_content: ctx.reasoningContent } : {}),
      tool_calls: (round.over ? [...calls, round.over.call] : calls).map(toWireToolCall),
    });
    const results: ToolResult[] = [];
    for (const call of calls) {
      control.stop.throwIfAborted();
      const result = await runToolCall(deps, ctx, call, control, offer);
      if (ctx.response !== null) return end(ctx.response ?? "", "", true);
      results.push(result);
      if (result.status !== "denied" && result.status !== "interrupted") toolsUsed.push(call.name);
      if (result.status === "ok" || result.status === "error") ran.push(result);
      messages.push({ role: "tool", tool_call_id: call.id, name: call.name, content: result.content });
    }
    if (round.over) {
      const { call, result } = round.over;
      publishToolEnd(deps, ctx, result, 0);
      messages.push({ role: "tool", tool_call_id: call.id, name: call.name, content: result.content });
    }
    ctx.toolCalls = calls;
    ctx.toolResults = results;
    if (results.every((r) => r.status === "denied")) {
      return end(ctx.llmText || results.map((r) => r.content).join("\n"), ctx.reasoningContent);
    }
  }
}

/**
 * One LLM call that fits the context budget: tool results that piled up are dropped oldest first before
 * asking, and a provider's "context length exceeded" prunes harder and asks once more.
 */
async function callLLM(
  deps: LoopDeps,
  ctx: MutableStageContext,
  messages: ChatMessage[],
  control: TurnControl,
  offer: ToolOffer,
): Promise<CompletionResponse> {
  const tools = offer.specs();
  fitToBudget(messages, requestBudget(deps.llm.contextWindow()) - offer.tokens());
  try {
    return await streamLLM(deps, ctx, messages, tools, control);
  } catch (err) {
    if (!isContextTooLong(err) || !pruneForRetry(messages)) throw err;
    deps.bus.publish("system", "kernel", {
      kind: "context_pruned",
      requestId: ctx.requestId,
      reason: err.message,
    });
    return await streamLLM(deps, ctx, messages, tools, control);
  }
}

async function streamLLM(
  deps: LoopDeps,
  ctx: MutableStageContext,
  messages: ChatMessage[],
  tools: ToolSpec[],
  control: TurnControl,
): Promise<CompletionResponse> {
  const abort = new AbortController();
  const unlink = linkAbort(abort, [control.stop]);
  control.llmAbort = abort;
  const deltas = new DeltaPublisher(deps.bus, ctx.requestId);
  try {
    return await deps.llm.stream(
      {
        model: "",
        messages: [...messages],
        tools,
        tool_choice: "auto",
        max_tokens: deps.settings.maxTokens(),
        temperature: deps.settings.temperature(),
        disable_thinking: !deps.settings.thinkingEnabled(),
        stream: true,
      },
      {
        signal: abort.signal,
        onChunk: (chunk) => deltas.chunk(chunk),
        onRestart: () => deltas.reset(),
        ...(control.llmSource ? { source: control.llmSource } : {}),
      },
    );
  } catch (err) {
    if (abort.signal.aborted && !control.stop.aborted) {
      deltas.reset();
      throw new InterruptedCall({
        code: "interrupted",
        message: "interrupted: the call is asked again with the new input",
      });
    }
    throw err;
  } finally {
    control.llmAbort = null;
    unlink();
  }
}

/**
 * One tool call through before_toolcall (which may refuse, drop or edit it), the tool, and after_toolcall.
 * `tool_call` is published with phase "start" when the tool begins to run (with the arguments it runs
 * with) and with phase "end" when its result is final; a call that never runs (refused, interrupted) only
 * has the "end".
 */
async function runToolCall(
  deps: LoopDeps,
  ctx: MutableStageContext,
  call: ToolCall,
  control: TurnControl,
  offer: ToolOffer,
): Promise<ToolResult> {
  let began = performance.now();
  const end = (r: ToolResult): ToolResult => {
    publishToolEnd(deps, ctx, { ...r, toolCallId: call.id, name: call.name }, performance.now() - began);
    return r;
  };
  if (control.interrupts.size > 0) {
    return end({
      toolCallId: call.id,
      name: call.name,
      status: "interrupted",
      content: "not run: the user interrupted before this tool started",
    });
  }
  if (!offer.allows(call.name)) {
    return end({
      toolCallId: call.id,
      name: call.name,
      status: "denied",
      content: `error: tool "${call.name}" is not allowed in this task; allowed: ${offer.allowed().join(", ") || "(no tools)"}`,
    });
  }
  const owner = deps.tools.get(call.name)?.owner;
  ctx.toolCalls = [{ ...call, arguments: { ...call.arguments } }];
  ctx.toolResults = [];
  await deps.stages.run("before_toolcall", ctx, { toolOwner: owner, stop: control.stop });
  const edited = ctx.toolCalls.find((c) => c.id === call.id);
  let result: ToolResult;
  // A handler that dropped the call (of its own tool, or any with tool_calls_any) refused it.
  if (ctx.response !== null || !edited) {
    const why = ctx.response ?? "dropped by a plugin's before_toolcall handler";
    result = {
      toolCallId: call.id,
      name: call.name,
      status: "denied",
      content: `工具 ${call.name} 已被插件拒绝 (tool refused by a plugin): ${why}`,
    };
    ctx.response = null;
  } else {
    began = performance.now();
    deps.bus.publish("tool_call", "kernel", {
      phase: "start",
      requestId: ctx.requestId,
      toolCallId: call.id,
      name: call.name,
      arguments: edited.arguments,
    });
    const outcome = await executeWithin(deps, { ...edited, id: call.id, name: call.name }, ctx, control.stop);
    result = { toolCallId: call.id, name: call.name, ...outcome };
  }
  ctx.toolResults = [result];
  await deps.stages.run("after_toolcall", ctx, { toolOwner: owner, stop: control.stop });
  return end(ctx.toolResults[0] ?? result);
}

function publishToolEnd(deps: LoopDeps, ctx: MutableStageContext, r: ToolResult, durationMs: number): void {
  deps.bus.publish("tool_call", "kernel", {
    phase: "end",
    requestId: ctx.requestId,
    toolCallId: r.toolCallId,
    name: r.name,
    status: r.status,
    result: r.content,
    durationMs: Math.round(durationMs),
  });
}

/** One tool call bounded by `core.agent.tool_timeout` as well as by the turn's own stop signal. */
async function executeWithin(
  deps: LoopDeps,
  call: ToolCall,
  ctx: MutableStageContext,
  stop: AbortSignal,
): Promise<ToolOutcome> {
  const ms = deps.settings.toolTimeoutMs();
  const abort = new AbortController();
  const unlink = linkAbort(abort, [stop]);
  const timer = setTimeout(
    () =>
      abort.abort(
        new HomeAgentError({
          code: "tool_timeout",
          message: `did not finish within ${ms} ms (core.agent.tool_timeout)`,
        }),
      ),
    ms,
  );
  try {
    const { signal } = abort;
    return await deps.tools.execute(call, {
      requestId: ctx.requestId,
      source: ctx.source,
      channel: ctx.channel,
      signal,
    });
  } finally {
    clearTimeout(timer);
    unlink();
  }
}
