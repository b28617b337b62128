/**
 * @homeagent/sdk — the one public plugin API. Built-in plugins use exactly this; the kernel implements it.
 * Names follow the HomeAgent architecture document (PluginSDK, StageContext, output channels).
 */

import type { EmbeddingFactory } from "./embedding.js";

/** The seven stage hooks, in the order one input passes through them. */
export const STAGES = [
  "on_input",
  "pre_action",
  "post_action",
  "before_toolcall",
  "after_toolcall",
  "before_output",
  "after_output",
] as const;
export type Stage = (typeof STAGES)[number];

/** Scope of a stage handler: "global" sees everything; "own_tools" limits tool stages to the plugin's tools. */
export type StageScope = "global" | "own_tools";

export interface TokenUsage {
  prompt: number;
  completion: number;
  total: number;
  cacheRead: number;
  cacheMiss: number;
  /** false = the provider said nothing about caching ("unknown"), true = the cache figures are real. */
  cacheReported: boolean;
  reasoningTokens: number;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed arguments; when the model sent invalid JSON this is `{}` and `rawArguments` keeps the text. */
  arguments: Record<string, unknown>;
  rawArguments?: string;
}

export interface ToolResult {
  toolCallId: string;
  name: string;
  content: string;
  status: ToolCallStatus;
}

export type ToolCallStatus = "ok" | "error" | "denied" | "interrupted" | "unknown_tool";

export interface ContextMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** Shared by every handler of one stage. Handlers of one stage run concurrently on the same object. */
export interface StageContext {
  readonly stage: Stage;
  readonly requestId: string;
  readonly source: string;
  readonly channel: string;
  /** The input text as it arrived; `on_input` handlers may rewrite it. */
  rawMessage: string;
  userId: string;
  groupId: string;
  /** Extra messages that `pre_action` handlers add to the LLM request. */
  contextMsgs: ContextMessage[];
  /** The LLM's text of the current round (`post_action`). */
  llmText: string;
  reasoningContent: string;
  tokenUsage: TokenUsage | null;
  /** Tool calls of the current round; `post_action` may edit the list, `before_toolcall` sees one call. */
  toolCalls: ToolCall[];
  toolResults: ToolResult[];
  /** The reply text; `before_output` may rewrite it. */
  finalText: string;
  /** Setting this short-circuits: processing skips to `after_output` with this text as the reply. */
  response: string | null;
  phase: string;
  memory: Array<{ role: string; content: string; score: number }>;
  noMemory: boolean;
  extra: Record<string, unknown>;
  /** Errors thrown by handlers, recorded instead of stopping the others. */
  errors: Array<{ plugin: string; stage: Stage; message: string }>;
}

export type StageHandler = (ctx: StageContext) => void | Promise<void>;

/** JSON Schema object describing a tool's parameters. */
export type JSONSchema = Record<string, unknown>;

export interface ToolDef {
  name: string;
  description: string;
  parameters: JSONSchema;
}

export interface ToolContext {
  requestId: string;
  source: string;
  channel: string;
  signal: AbortSignal;
}

export type ToolHandler = (args: Record<string, unknown>, ctx: ToolContext) => unknown | Promise<unknown>;

/** Output channel capability flags. */
export const CapText = 1;
export const CapFile = 2;
export const CapImage = 4;
export const CapAudio = 8;
export const CapStructured = 16;

export interface OutputMessage {
  payload: string;
  meta: Record<string, unknown>;
  type: string;
  requestId: string;
}

export type OutputHandler = (msg: OutputMessage) => unknown | Promise<unknown>;

export interface OutputChannelOptions {
  /** Values allowed for the `type` parameter; default ["text"]. */
  types?: string[];
  /** Help text returned by `output_send__{name}_help` (meta fields, routing). */
  help?: string;
}

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
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface AgentEvent {
  type: EventType;
  source: string;
  payload: Record<string, unknown>;
  timestamp: number;
}

export type EventHandler = (event: AgentEvent) => void;

export interface InjectOptions {
  /** Keep this input out of long-term memory. */
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

export interface SettingsAPI {
  /** Plugin-scoped settings, stored as `plugin.<name>.<key>`. */
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  list(): Record<string, string>;
}

export type ConfigType = "string" | "int" | "bool" | "duration" | "password" | "select" | "text";

export interface ConfigEntry {
  key: string;
  /** Masked when the key is a password. */
  value: string;
  type: ConfigType;
  description: string;
  category: string;
}

/** Daemon-wide configuration, for plugins that hold the `config` capability (cfgmgr, cli, webui). */
export interface ConfigAPI {
  list(prefix?: string): ConfigEntry[];
  set(key: string, value: string): void;
}

export interface KernelStatus {
  version: string;
  uptimeS: number;
  busy: boolean;
  queued: number;
  processed: number;
  tools: number;
  outputChannels: string[];
  llm: { sources: Array<{ name: string; model: string; available: boolean; lastError?: string }> };
  plugins: Array<{ name: string; state: string }>;
  embedding: EmbeddingStatusInfo;
}

/** The embedding tier in use, and every tier above it that is not, with the reason. */
export interface EmbeddingStatusInfo {
  active: string;
  fingerprint: string;
  dimension: number;
  degraded: Array<{ tier: string; reason: string }>;
}

/** One LLM source as the daemon sees it (`/llm`, the llm_list_sources tool, the status page). */
export interface LlmSourceStatus {
  name: string;
  model: string;
  adapter: string;
  /** Whether the next request may go to it: not disabled by a 401/403 and not cooling down. */
  available: boolean;
  /**
   * "cooling_down": failed repeatedly; skipped until `cooldownUntil` unless every other source fails too.
   * "unavailable": rejected its credentials (401/403); skipped until its configuration changes.
   */
  state: "ready" | "cooling_down" | "unavailable";
  lastError?: string;
  /** Unix milliseconds. */
  cooldownUntil?: number;
  priority: number;
  /** Chosen with `/llm use <name>` (or llm_set_source): tried before the priority order. */
  preferred: boolean;
  /** Tokens; 0 = unknown (configured, or read from the server). */
  contextWindow: number;
  /** false = the model cannot take tools, so none are sent; absent = unknown. */
  supportsTools?: boolean;
  maxConcurrent: number;
  inFlight: number;
}

/** The daemon's LLM sources, for plugins that hold the `llm` capability (cli, webui). */
export interface LlmAPI {
  sources(): LlmSourceStatus[];
  /** Makes `name` the preferred source until changed (persisted as core.llm.provider); "" = priority order. */
  use(name: string): void;
}

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export interface PluginSDK {
  readonly pluginName: string;
  /** Directory for this plugin's own files. */
  readonly dataDir: string;
  /** The daemon's data directory (sockets and shared files live here). */
  readonly daemonDataDir: string;
  readonly log: Logger;

  registerTool(def: ToolDef, handler: ToolHandler): void;
  registerStage(stage: Stage, handler: StageHandler, scope?: StageScope): void;
  registerOutputChannel(
    name: string,
    caps: number,
    description: string,
    handler: OutputHandler,
    opts?: OutputChannelOptions,
  ): void;
  /**
   * Adds an embedding provider by name; choosing it is `core.embedding.provider = <name>`. The factory
   * gets the `core.embedding.*` settings; if it throws, the daemon reports it and uses the next tier.
   */
  registerEmbeddingProvider(name: string, factory: EmbeddingFactory): void;
  subscribe(type: EventType | "*", handler: EventHandler): () => void;
  publish(type: EventType, payload: Record<string, unknown>): void;

  injectInput(source: string, channel: string, text: string, opts?: InjectOptions): string;
  injectInputSync(source: string, channel: string, text: string, opts?: InjectOptions): Promise<InputReply>;
  injectInterrupt(source: string, channel: string, text: string): void;

  settings: SettingsAPI;
  config: ConfigAPI;
  /** Checks a client's API key against the daemon's; always true when no key is configured. */
  auth: { required(): boolean; verify(key: string): boolean };
  kernel: { status(): KernelStatus; toolNames(): string[] };
  llm: LlmAPI;
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
  start(sdk: PluginSDK): void | Promise<void>;
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

export {
  type EmbeddingFactory,
  type EmbeddingInfo,
  type EmbeddingInput,
  type EmbeddingProvider,
  ErrModalityUnsupported,
  type Modality,
  textInput,
} from "./embedding.js";
