/**
 * Kernel-side shapes. Public ones (StageContext, ToolDef, …) live in the SDK; these are what the kernel
 * needs from the layers below it (LLM, context window, memory) and the queue entries it schedules. The
 * memory layer (src/memory) implements ContextWindow and MemoryContext; the kernel never imports it.
 */
import type { InjectOptions, InputReply, StageContext } from "@homeagent/sdk";
import type { CompletionRequest, CompletionResponse, StreamChunk } from "./llm-spec.js";

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
      /** The source to ask first (the input's `llmSource`); default the preferred one. */
      source?: string;
    },
  ): Promise<CompletionResponse>;
}

/** Settings the kernel reads on every turn, so changes apply without a restart. */
export interface AgentSettings {
  maxToolTurns(): number;
  /** Tool calls run from one LLM reply (`core.agent.max_tool_calls_per_round`); the rest are refused. */
  maxToolCallsPerRound(): number;
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

/**
 * A query prepared once per turn (tokens, vector) and reused by prune and by the memory sections. The
 * kernel only reads its text; the retrieval layer's PreparedQuery carries more.
 */
export interface PreparedQuery {
  readonly text: string;
}

/**
 * `user`: one user turn (its input, and its reply once answered). `agent`: something the agent said on its
 * own (a self-task whose reply was delivered). `cold_storage`: an archived turn brought back by doc_query.
 */
export type ContextEventKind = "user" | "agent" | "cold_storage";

/** One tool result of a turn, as memory keeps it. */
export interface ToolResultRecord {
  name: string;
  content: string;
  /** The tool is marked NoMemory: kept verbatim in the window, never vectorised or archived. */
  noMemory?: boolean;
  /** After the tool's cleaner; only when it differs from `content`. */
  clean?: string;
}

export interface ContextEvent {
  id: number;
  /** Unix ms; the window is ordered by it (then by id), so re-inserted events keep their original place. */
  ts: number;
  kind: ContextEventKind;
  source: string;
  channel: string;
  input: string;
  response: string;
  toolsUsed: string[];
  toolResults: ToolResultRecord[];
  /** Channel/tool marked NoMemory: kept verbatim, never vectorised, never archived. */
  noMemory: boolean;
  /** Input after the input channel's cleaner, when it differs. */
  cleanInput?: string;
  /** Why a user input got no reply (LLM error, cancelled, shutdown): the next prompt shows it as unanswered. */
  unanswered?: string;
  /**
   * The request of a user's turn (an input, or an interrupt answered on its own): what `InjectOptions.replaces`
   * and a chosen version name. The channel's newest event that has one is its last turn.
   */
  requestId?: string;
}

export type NewContextEvent = Omit<ContextEvent, "id" | "response" | "toolsUsed" | "toolResults" | "noMemory"> &
  Partial<Pick<ContextEvent, "response" | "toolsUsed" | "toolResults" | "noMemory">>;

/** The context window behind the prompt's timeline; RelevanceContext (src/memory/window/context.ts) implements it. */
export interface ContextWindow {
  /** Durable before it resolves; returns the event's id. */
  append(e: NewContextEvent): Promise<number>;
  /** The turn's reply joins its input event. */
  respond(id: number, r: { response: string; toolsUsed: string[]; toolResults: ToolResultRecord[] }): Promise<void>;
  markUnanswered(id: number, reason: string): Promise<void>;
  /**
   * Keeps at most `keep` events, ranked for `query`, never removing `spare` (the turn an input replaces);
   * returns the events that left (archived or dropped).
   */
  prune(query: string | PreparedQuery, keep: number, spare?: readonly number[]): Promise<ContextEvent[]>;
  insertByTimestamp(events: NewContextEvent[]): Promise<number[]>;
  remove(ids: number[]): Promise<number>;
  /**
   * Event `oldId` leaves and `e` comes in, in one transaction (a turn asked again, or edited): the window
   * never holds both, nor neither. Refused ("context_event_gone") when `oldId` is no longer in the window.
   */
  replace(oldId: number, e: NewContextEvent): Promise<{ id: number; replaced: ContextEvent }>;
  /**
   * The channel's newest event that has a request id (its last user turn), or null. Synchronous: an input
   * that replaces a turn is checked before it is queued.
   */
  lastTurn(channel: string): { id: number; requestId: string } | null;
  /**
   * An earlier version of the channel's last turn (stashed when `replace` took it out) takes the place of the
   * one in the window, which is stashed in turn, in one transaction; null when it is in the window already.
   * Refused ("invalid_argument") when it is not a version of that turn.
   */
  choose(channel: string, requestId: string): Promise<{ chosen: ContextEvent; replaced: ContextEvent } | null>;
  /** Ordered by ts, then id. */
  window(): Promise<ContextEvent[]>;
  size(): number;
}

/** Token budgets of the two memory sections of one request. */
export interface MemoryBudgets {
  index: number;
  related: number;
}

/** What the kernel needs of long-term memory: the prompt's memory sections and the end of each turn. */
export interface MemoryContext {
  prepare(text: string): Promise<PreparedQuery>;
  /** Prompt sections; each string already fits its token budget (estimateTokens of kernel/budget.ts). */
  build(
    q: PreparedQuery,
    budgets: MemoryBudgets,
    opts: { requestId: string /** Event ids in the window: already in the prompt. */; exclude: Set<number> },
  ): Promise<{ index: string; related: string }>;
  markRecalled(requestId: string, names: string[]): void;
  /**
   * The turn is over: per-request state is released, and the recorded event goes to the text log and the
   * distiller. `null`: nothing was recorded (a transient turn, or one that ended before its event was
   * written), so only the per-request state goes.
   */
  turnDone(requestId: string, e: ContextEvent | null): Promise<void>;
  /**
   * A turn was replaced in the window (asked again, or edited): its raw-log line goes too. (Its distill
   * candidate was set aside by the window's own swap, in the same transaction.)
   */
  superseded?(e: ContextEvent): Promise<void>;
  /** An earlier version of a turn was chosen back into the window: its raw-log line returns. */
  restored?(e: ContextEvent): Promise<void>;
}

export type TaskKind = "input" | "self" | "interrupt";

export interface InputTask {
  requestId: string;
  kind: TaskKind;
  source: string;
  channel: string;
  text: string;
  opts: InjectOptions;
  /** A self-task's allowlist: only these tools are offered, any other call is refused. */
  tools?: readonly string[];
  /** A self-task's own bound on rounds of tool calls (never above core.agent.max_tool_turns). */
  maxToolTurns?: number;
  /** Present for injectInputSync: the reply goes back here instead of to an output channel. */
  reply?: (reply: InputReply) => void;
  /** Removes what the task attached to long-lived objects (its caller's signal); called once it ends. */
  release: () => void;
}
