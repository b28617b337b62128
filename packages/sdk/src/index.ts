/**
 * @homeagent/sdk — the one public plugin API. Built-in plugins use exactly this; the kernel implements it.
 * Names follow the HomeAgent architecture document (PluginSDK, StageContext, output channels).
 */

import type { AdaptersAPI } from "./adapters.js";
import type { ApprovalOutcome, ApprovalRequest, ApprovalsAPI } from "./approvals.js";
import type { AuthAPI } from "./auth.js";
import type { InputChannelOptions, OutputCapability, OutputChannelOptions, OutputHandler } from "./channels.js";
import type { EmbeddingFactory } from "./embedding.js";
import type { InboxAPI, SendOptions, SendResult } from "./inbox.js";
import type { KnowledgeAPI } from "./knowledge.js";
import type { DocMemoryAPI, ForgetHandler, MemoryAPI, SocialAPI } from "./memory.js";
import type { PluginMgrAPI } from "./plugins.js";
import type { ConfigAPI, SettingsAPI } from "./settings.js";
import type { ContextMessage, Stage, StageHandler, StageScope, TokenUsage } from "./stages.js";
import type { ContextPreview, ContextReport, KernelStatus, LlmAPI } from "./status.js";
import type { ToolDef, ToolHandler, ToolInfo } from "./tools.js";
import type { TranscriptsAPI } from "./transcripts.js";

/**
 * The event types on the bus. Payload keys are camelCase; every kernel event of one input carries its
 * `requestId`. Payloads by type:
 * - `raw_input`: `{requestId, source, channel, text, noMemory?, self?, newTopic?, transient?}` — a turn began
 *   (before on_input); `noMemory: true` keeps it out of long-term memory, `self: true` marks a kernel
 *   self-task, `newTopic: true` an input that starts a new topic, `transient: true` one recorded nowhere.
 * - `agent_output`: `{requestId, source, channel, content, reasoningContent?, usage?, error?, stopped?}` — the
 *   turn's reply, published before it is delivered; with `error` the turn failed and `content` says why (it
 *   is not an agent reply), `stopped: true` when it was stopped.
 * - `agent_llm_chain`: `{requestId, content, reasoning, toolCalls, phase: "intermediate", turn, usage}` —
 *   one LLM round, after post_action.
 * - `tool_call`: `{phase: "start", requestId, toolCallId, name, arguments}` when a tool begins to run (with
 *   the arguments it runs with), and `{phase: "end", requestId, toolCallId, name, status, result,
 *   durationMs}` when its result is final. A call that never ran (refused by before_toolcall, or an
 *   interrupt was pending) has only the "end" (status "denied" / "interrupted").
 * - `reasoning`: `{requestId, content}` — a round's whole reasoning text.
 * - `stage`: `{stage, requestId, handlers, durationMs, errors: [{plugin, message}]}` — one stage run, also
 *   with 0 handlers; errors include handlers that timed out.
 * - `system`: `{kind, …}` — daemon news, e.g. `interrupt` `{source, channel, requestId?, text?}` (with the
 *   running turn it was said in and its text, unless that turn was a self-task, cancelled), `context_pruned`
 *   `{requestId, reason}`, `plugin_failed` `{plugin, error}`, `plugin_crashed` `{plugin, exitCode, signal,
 *   stderrTail}`, `plugin_unhealthy` `{plugin, error}` (crashed 3 times in 5 minutes; not restarted),
 *   `plugin_degraded` `{plugin, stage, reason}` (a stage handler of it failed 3 of its last 5 runs: all its
 *   stage handlers are skipped until it restarts or is reloaded), `turn_replaced` `{requestId, channel,
 *   replaces}` (the turn took the place of `replaces` in the window: InjectOptions.replaces), `version_chosen`
 *   `{channel, requestId, chosenAt}` (an earlier version of a turn is the one in memory again:
 *   TranscriptsAPI.choose), `started`, `tools_trimmed` `{offered, total}`
 *   (once per run: the tool definitions exceed their share of the prompt, so each request offers a core set
 *   and the model loads others with tool_search), `mcp_server` `{server, state, error?}` (an MCP server of the
 *   mcp plugin came up, or went down and is being started again).
 * - `approval`: `{phase: "asked", approval: PendingApproval}` when a tool asks the user, and `{phase:
 *   "closed", id, requestId, outcome, by?}` when it is answered, times out or is cancelled (outcome: once,
 *   always, remembered, denied, timeout, no_client, cancelled).
 * - `content_delta` / `reasoning_delta`: `{requestId, content, reset?: true}` — streamed text. An empty delta
 *   with `reset: true` means the text starts over (an interrupted call is asked again, or a broken stream
 *   is retried): drop what was shown for this request so far, for that kind of delta.
 */
export const EVENT_TYPES = [
  "raw_input",
  "agent_output",
  "agent_llm_chain",
  "tool_call",
  "reasoning",
  "stage",
  "system",
  "reasoning_delta",
  "content_delta",
  "approval",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface AgentEvent {
  /** Increases by one with every event the daemon publishes (from 1 at start): order, and gaps in a replay. */
  seq: number;
  type: EventType;
  /** "kernel", or the name of the plugin that published it. */
  source: string;
  /** See EVENT_TYPES for each type's keys. */
  payload: Record<string, unknown>;
  /** Unix milliseconds. */
  timestamp: number;
}

export type EventHandler = (event: AgentEvent) => void;

export interface InjectOptions {
  /**
   * Keep this input out of long-term memory: it stays verbatim in the context window, but is never
   * vectorised or archived.
   */
  noMemory?: boolean;
  /** Output channel for the reply; default the input's channel. */
  outputChannel?: string;
  userId?: string;
  groupId?: string;
  /** Called with the request id as soon as the input is queued, before it runs. */
  onQueued?: (requestId: string) => void;
  /**
   * Cancels the input: a queued one is dropped, a running one stops its LLM call and tools. The reply
   * then says it was cancelled (e.g. the client that asked has gone away).
   */
  signal?: AbortSignal;
  /**
   * The conversation so far as the client keeps it (an OpenAI-style `messages` array without its last user
   * message): shown to the model as this input's timeline instead of the daemon's context window; `system`
   * messages join the prompt as context. At most 256 messages and 256 KiB, or the input is refused.
   */
  history?: ContextMessage[];
  /**
   * Not recorded in memory at all: the input and its reply are neither added to the context window nor
   * logged, so nothing is archived or distilled (the client keeps its own history). Implies noMemory.
   */
  transient?: boolean;
  /**
   * The LLM source to ask first for this input (a name as `llm.sources()` lists it), instead of the
   * preferred one; the others still stand in if it fails. An unknown name fails the turn, saying so.
   */
  llmSource?: string;
  /**
   * This input starts a new topic: the model is told that the turns before it may be about something else.
   * Nothing is erased (one agent, one memory); the transcript marks where the topic changed.
   */
  newTopic?: boolean;
  /**
   * The request id of this channel's last turn, which this input takes the place of (its reply asked
   * again, or its message edited): in one write the earlier turn leaves the context window — kept aside as
   * it was, a version `TranscriptsAPI.choose` can bring back — and this one comes in, so the model sees one
   * version. Its raw-log line goes and its distill candidate waits aside, unless it was distilled already
   * (facts taken from it stay). Refused ("invalid_argument") before it is queued when that turn is not the
   * channel's last still in the window. Survives a restart: the window keeps each turn's request id.
   */
  replaces?: string;
}

/** What `selfTask` runs with. */
export interface SelfTaskRequest {
  /** The only tools offered; at most 64 names. */
  tools: string[];
  /** Rounds of tool calls it may take; never more than `core.agent.max_tool_turns`. */
  maxToolTurns?: number;
  /** Stops it (queued or running) after this many ms; default 120 000, at most 3 600 000. */
  timeoutMs?: number;
}

export interface InputReply {
  requestId: string;
  content: string;
  reasoningContent?: string;
  usage?: TokenUsage;
  /** True when a stage handler answered instead of the model. */
  shortCircuited: boolean;
  error?: string;
}

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/**
 * What a plugin gets in start(). Members are grouped by the capability they need (see capabilities.ts);
 * a call outside the plugin's capabilities throws an error with code "capability_denied" naming the
 * method and the capability. Once the plugin is stopped (or failed to start) every call throws with code
 * "plugin_stopped", including calls from timers or promises the plugin left running.
 */
export interface PluginSDK {
  // Capability `core` (always granted): identity, own files, log, own tools, stages, channels, settings.
  readonly pluginName: string;
  /** Directory for this plugin's own files. */
  readonly dataDir: string;
  /** The daemon's data directory (sockets and shared files live here). */
  readonly daemonDataDir: string;
  readonly log: Logger;

  registerTool(def: ToolDef, handler: ToolHandler): void;
  /**
   * Removes one of this plugin's own tools (e.g. one a remote server no longer offers); a call of it already
   * running still finishes. Answers whether the plugin had a tool of that name. The name may be registered
   * again afterwards, and it no longer counts toward the plugin's limit of tools.
   */
  unregisterTool(name: string): boolean;
  /**
   * A handler of `stage`. Of `ctx.toolCalls` it may add, edit or drop only calls of this plugin's own tools,
   * and of `ctx.toolResults` replace only theirs (editing, dropping and replacing for any call needs
   * "tool_calls_any"); another change there is dropped and logged. A handler that failed 3 of its last 5
   * runs suspends all of this plugin's handlers until it restarts.
   */
  registerStage(stage: Stage, handler: StageHandler, scope?: StageScope): void;
  /**
   * A channel the model sends through (`output_send__<name>`). The built-ins' names (cli, webui, http,
   * timer, cmd, files, mcp, agentcli, terminal, …) and the daemon's (system, self, kernel, `_…`) are refused
   * ("channel_name_reserved"), as for registerInputChannel.
   */
  registerOutputChannel(
    name: string,
    caps: readonly OutputCapability[],
    description: string,
    handler: OutputHandler,
    opts?: OutputChannelOptions,
  ): void;
  /**
   * Declares how memory treats the inputs this plugin injects on `name` (NoMemory, cleaner). A built-in's
   * channel name or the daemon's is refused ("channel_name_reserved").
   */
  registerInputChannel(name: string, opts?: InputChannelOptions): void;
  /** The plugin's own `plugin.<name>.*` settings. */
  settings: SettingsAPI;

  /**
   * Capability `embedding`. Adds an embedding provider by name; choosing it is
   * `core.embedding.provider = <name>`. The factory gets the `core.embedding.*` settings; if it throws, the
   * daemon reports it and uses the next tier.
   */
  registerEmbeddingProvider(name: string, factory: EmbeddingFactory): void;

  /**
   * Capability `forget_hook`. The plugin keeps user text of its own (files, caches, a database): when the
   * user forgets something, `handler` is asked to count (the preview) and then remove the plugin's data that
   * mentions the terms; its counts and samples appear in the forget's report. It gets the forgotten text
   * itself, which is why the capability is granted explicitly. One handler per plugin; a later call
   * replaces it. It must answer within 10 s.
   */
  onForget(handler: ForgetHandler): void;

  /** Capability `events`. The returned function unsubscribes (and never throws). */
  subscribe(type: EventType | "*", handler: EventHandler): () => void;
  /** Capability `events`, and built-in plugins only: other plugins are refused. */
  publish(type: EventType, payload: Record<string, unknown>): void;

  // Capability `io`: talking to the agent as a user would. A channel or source (its part before the first
  // "/" or ":") that names a built-in or the daemon ("cli", "webui", "kernel", …) is refused
  // ("channel_name_reserved"), unless this is that built-in.
  injectInput(source: string, channel: string, text: string, opts?: InjectOptions): string;
  injectInputSync(source: string, channel: string, text: string, opts?: InjectOptions): Promise<InputReply>;
  injectInterrupt(source: string, channel: string, text: string): void;
  /**
   * Delivers `text` to the output channel `channel` outside any turn (no LLM is involved). A channel whose
   * handler reports "no_client" (nobody connected) keeps it in its inbox until a client connects; an unknown
   * channel throws "channel_not_found".
   */
  send(channel: string, text: string, opts?: SendOptions): Promise<SendResult>;
  /** Capability `io`, built-in plugins only: pending approvals, the user's answers, remembered ones. */
  approvals: ApprovalsAPI;
  /**
   * Capability `io`, built-in plugins only: runs a tool as the user asked for it in a client (the dashboard
   * lists and cancels timers with timer_list and timer_cancel), outside any turn, within 30 s. Resolves with
   * the tool's result text; a failed call rejects ("not_found" for an unknown tool, "tool_failed").
   */
  runTool(name: string, args?: Record<string, unknown>): Promise<string>;
  /**
   * Capability `io`, built-in plugins only: an LLM turn of the daemon's own (a self-test, a review) in its
   * own lane, offered only `opts.tools` (any other call is refused), kept out of memory and delivered
   * nowhere. Resolves with its reply (with `error` when it failed or was stopped at `timeoutMs`).
   */
  selfTask(text: string, opts: SelfTaskRequest): Promise<InputReply>;

  /**
   * Capability `core`, from inside one of this plugin's own tool calls (`request.requestId` is the tool
   * context's): asks the user and waits for the answer, at most `core.agent.approval_timeout`. A refusal is
   * an outcome, not an error; the caller must not go ahead unless `approved`.
   */
  ask(request: ApprovalRequest): Promise<ApprovalOutcome>;
  /** Capability `core`: what this plugin's own output channels kept while no client was connected. */
  inbox: InboxAPI;

  /** Capability `settings_cross`. */
  config: ConfigAPI;
  /** Capability `auth`: API keys, logins and sessions, the cli socket's key. */
  auth: AuthAPI;
  /**
   * Capability `kernel_status`. `context()`: the last request's tokens per section; null before the first.
   * `preview(query)` needs `memory` (it shows memory's contents): what would be sent for `query` now.
   */
  kernel: {
    status(): KernelStatus;
    toolNames(): string[];
    /** Every tool the model can be offered, with its definition and who registered it, sorted by name. */
    tools(): ToolInfo[];
    context(): ContextReport | null;
    preview(query: string): Promise<ContextPreview>;
  };
  /** `sources()` needs `kernel_status`, `use()` needs `llm_admin`. */
  llm: LlmAPI;
  /**
   * Long-term memory: capability `memory` to read (recall, search, list, timeline, stats, check), `memory_admin`
   * for commit, editFact, deleteFact, runLoop and forget. Calls throw (code "memory_unavailable") while
   * memory is not running.
   */
  memory: MemoryAPI;
  /** Memory documents (archived conversations, committed notes), read-only; capability `doc_memory`. */
  docMemory: DocMemoryAPI;
  /** Capability `memory`: what each turn on every channel looked like, newest first (a chat log). */
  transcripts: TranscriptsAPI;
  /** People and their relations, read-only; capability `social`. */
  social: SocialAPI;
  /** Capability `plugin_mgr`: list, enable, disable and reload plugins. */
  pluginMgr: PluginMgrAPI;
  /** Capability `knowledge`: the knowledge base's tree, items and search. */
  knowledge: KnowledgeAPI;
  /** Capability `llm_admin`: the Lua provider adapters. */
  adapters: AdaptersAPI;

  /**
   * Capability `core`. Whether the daemon restarts this plugin after it crashes (default on). Off suits a
   * plugin that would only crash again, e.g. one whose device is gone.
   */
  setAutoRestart(on: boolean): void;
}

/**
 * The plugin API version this SDK speaks. A plugin built against another major version is refused at load
 * with a message naming both versions, instead of failing later in some call.
 */
export const PLUGIN_API_VERSION = 1;

export interface Plugin {
  readonly name: string;
  /** The PLUGIN_API_VERSION the plugin was written against; definePlugin fills it in. */
  readonly apiVersion: number;
  /** Bounded by the daemon (10 s by default): a start that does not settle in time counts as failed. */
  start(sdk: PluginSDK): void | Promise<void>;
  /**
   * Also called after a start() that threw or timed out, so release whatever start() acquired. The SDK is
   * already revoked then; after a normal run it still works until stop() returns.
   */
  stop(): void | Promise<void>;
}

export interface PluginDefinition {
  name: string;
  start(sdk: PluginSDK): void | Promise<void>;
  /** Optional: whatever start() registered through the SDK is detached by the daemon anyway. */
  stop?(): void | Promise<void>;
}

/** Declares a plugin: the name is given once, and the API version is the one this SDK speaks. */
export function definePlugin(def: PluginDefinition): Plugin {
  return {
    name: def.name,
    apiVersion: PLUGIN_API_VERSION,
    start: (sdk) => def.start(sdk),
    stop: () => def.stop?.(),
  };
}

export type { AdapterInfo, AdaptersAPI } from "./adapters.js";
export {
  APPROVAL_CHOICES,
  type ApprovalChoice,
  type ApprovalOutcome,
  type ApprovalRecord,
  type ApprovalRequest,
  type ApprovalsAPI,
  type PendingApproval,
  type RememberedApproval,
} from "./approvals.js";
export type { AuthAPI, AuthSession } from "./auth.js";
export { CAPABILITIES, type Capability } from "./capabilities.js";
export {
  type InputChannelOptions,
  OUTPUT_CAPABILITIES,
  type OutputCapability,
  type OutputChannelOptions,
  type OutputHandler,
  type OutputMessage,
} from "./channels.js";
export { parseDuration } from "./duration.js";
export {
  EMBEDDING_SPECIFICATION_VERSION,
  type EmbeddingFactory,
  type EmbeddingInfo,
  type EmbeddingInput,
  type EmbeddingProvider,
  ErrModalityUnsupported,
  type Modality,
  textInput,
} from "./embedding.js";
export { ERROR_CODES, type ErrorCode, isErrorCode, SdkError, type SdkErrorOptions } from "./errors.js";
export { foldForForget, forgetMatcher } from "./forget.js";
export type { InboxAPI, InboxMessage, SendOptions, SendResult } from "./inbox.js";
export type { KnowledgeAPI, KnowledgeEntry, KnowledgeNode, KnowledgeSearchHit } from "./knowledge.js";
export type {
  DocMemoryAPI,
  ForgetCounts,
  ForgetHandler,
  ForgetReport,
  ForgetRequest,
  ForgetResult,
  HistoryEntry,
  KnowledgeForgetReport,
  MemoryAPI,
  MemoryDoc,
  MemoryEntity,
  MemoryEvent,
  MemoryGraphPage,
  MemoryItem,
  MemoryKind,
  MemoryLoop,
  MemoryRelation,
  MemoryStats,
  MemoryTriple,
  PersonInfo,
  PersonNetwork,
  PluginForgetReport,
  ScrubStatus,
  SocialAPI,
} from "./memory.js";
export type { MemoryCheck, MemoryCheckPart } from "./memory-check.js";
export type { PluginInfo, PluginKind, PluginMgrAPI, PluginState, ReloadReport } from "./plugins.js";
export type {
  ConfigAPI,
  ConfigDefInfo,
  ConfigEntry,
  ConfigType,
  SetManyResult,
  SettingDef,
  SettingsAPI,
} from "./settings.js";
export {
  type ContextMessage,
  STAGES,
  type Stage,
  type StageContext,
  type StageHandler,
  type StageScope,
  type TokenUsage,
  type ToolCall,
  type ToolCallStatus,
  type ToolResult,
} from "./stages.js";
export type {
  ContextPreview,
  ContextReport,
  EmbeddingStatusInfo,
  KernelStatus,
  LlmAPI,
  LlmSourceStatus,
  LlmSourceUsage,
  LlmTestResult,
  LlmUsageToday,
} from "./status.js";
export type { JSONSchema, ToolContext, ToolDef, ToolHandler, ToolInfo } from "./tools.js";
export type { TranscriptEntry, TranscriptItem, TranscriptQuery, TranscriptsAPI } from "./transcripts.js";
