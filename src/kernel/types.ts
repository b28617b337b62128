/**
 * Kernel-side shapes. Public ones (StageContext, ToolDef, …) live in the SDK; these are what the kernel
 * needs from the layers below it (LLM, context window) and the queue entries it schedules.
 */
import type { InjectOptions, InputReply, StageContext } from "@homeagent/sdk";
import type { CompletionRequest, CompletionResponse, StreamChunk } from "../llm/provider.js";
import type { ContextEvent, ContextWindow } from "../memory/context-window.js";

export type { ContextEvent, ContextWindow };

/** StageContext as the kernel holds it: the stage name changes as the input moves along. */
export type MutableStageContext = { -readonly [K in keyof StageContext]: StageContext[K] };

/** What the kernel needs of the LLM layer; ProviderManager implements it. */
export interface LLMClient {
  hasSources(): boolean;
  /** Tokens of the window the next request will meet; 0 = unknown. */
  contextWindow(): number;
  stream(
    req: CompletionRequest,
    opts: {
      signal?: AbortSignal;
      onChunk?: (chunk: StreamChunk) => void;
      /** The text starts over (a broken stream is asked again): drop the chunks delivered so far. */
      onRestart?: () => void;
    },
  ): Promise<CompletionResponse>;
}

/** Settings the kernel reads on every turn, so changes apply without a restart. */
export interface AgentSettings {
  maxToolTurns(): number;
  maxContextSize(): number;
  systemPrompt(): string;
  personalPrompt(): string;
  maxTokens(): number;
  temperature(): number;
  thinkingEnabled(): boolean;
  /** Deadline of one stage handler in ms (`core.plugin.stage_timeout`). */
  stageTimeoutMs(): number;
  /** Deadline of one tool call in ms (`core.agent.tool_timeout`). */
  toolTimeoutMs(): number;
  /** IANA zone of every time the model reads (`core.agent.timezone`); "" = the system's. */
  timezone(): string;
}

export type TaskKind = "input" | "self" | "interrupt";

export interface InputTask {
  requestId: string;
  kind: TaskKind;
  source: string;
  channel: string;
  text: string;
  opts: InjectOptions;
  /** Present for injectInputSync: the reply goes back here instead of to an output channel. */
  reply?: (reply: InputReply) => void;
  /** Removes what the task attached to long-lived objects (its caller's signal); called once it ends. */
  release: () => void;
}
