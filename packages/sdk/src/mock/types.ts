/**
 * The shapes of `@homeagent/sdk/test`: what a test passes to createMockSDK (MockSDKOptions, MockResponder)
 * and what it reads back (MockSDK's recordings, MockInput). Apart from test.ts so the public types can be
 * read without the fake's workings.
 */
import type {
  AdaptersAPI,
  ApprovalOutcome,
  ApprovalRequest,
  AuthAPI,
  ConfigDefInfo,
  ConfigEntry,
  ContextPreview,
  ContextReport,
  DocMemoryAPI,
  EmbeddingFactory,
  EventHandler,
  EventType,
  ForgetHandler,
  InjectOptions,
  InputChannelOptions,
  InputReply,
  KernelStatus,
  KnowledgeAPI,
  LlmAPI,
  LlmSourceStatus,
  Logger,
  MemoryAPI,
  OutputCapability,
  OutputChannelOptions,
  OutputHandler,
  PluginInfo,
  PluginSDK,
  SelfTaskRequest,
  SocialAPI,
  Stage,
  StageHandler,
  StageScope,
  ToolContext,
  ToolDef,
  ToolHandler,
  ToolInfo,
  TranscriptsAPI,
} from "../index.js";

/** One `send` call. */
export interface MockSent {
  channel: string;
  text: string;
  kind: string;
}

/** One injectInput / injectInputSync call. */
export interface MockInput {
  requestId: string;
  source: string;
  channel: string;
  text: string;
  opts?: InjectOptions;
  /** true for injectInputSync. */
  sync: boolean;
  /** The reply the responder gave; for injectInput a failure becomes a reply with `error`. */
  reply: Promise<InputReply>;
}

/**
 * Answers an injected input, as the agent would. A string is the reply's content; an object is merged
 * into the reply. Throwing makes injectInputSync reject. The default echoes the text.
 */
export type MockResponder = (
  input: Omit<MockInput, "reply">,
  sdk: MockSDK,
) => string | Partial<InputReply> | Promise<string | Partial<InputReply>>;

export interface MockSDKOptions {
  /** Default "test-plugin". */
  pluginName?: string;
  /** Default: a temp dir made on first use and removed when the process exits. */
  daemonDataDir?: string;
  /** Default `<daemonDataDir>/plugin_data/<pluginName>`; created on first use either way. */
  dataDir?: string;
  respond?: MockResponder;
  /** The plugin's own settings (relative keys). */
  settings?: Record<string, string>;
  /** Daemon-wide entries for `config.list` / `config.set` / `config.setMany`; a key not listed is refused. */
  config?: Array<Pick<ConfigEntry, "key" | "value"> & Partial<ConfigEntry>>;
  /** Overrides of the default `kernel.status()`. */
  status?: Partial<KernelStatus>;
  /** What `kernel.toolNames()` returns; default the tools the plugin registered. */
  toolNames?: string[];
  /** Answers `selfTask`; without it, selfTask rejects with code "unavailable". */
  selfTask?: (text: string, opts: SelfTaskRequest) => InputReply | Promise<InputReply>;
  /** What `kernel.tools()` returns; default the tools the plugin registered. */
  tools?: ToolInfo[];
  llmSources?: LlmSourceStatus[];
  /** The daemon's API key; "" (default) = none required. */
  apiKey?: string;
  /** What `kernel.context()` returns; default null (no request yet). */
  context?: ContextReport | null;
  /** Answers of the memory APIs; a method not given rejects with code "memory_unavailable". */
  memory?: Partial<MemoryAPI>;
  docMemory?: Partial<DocMemoryAPI>;
  /** What `transcripts.list` and `choose` answer; not given, they reject with code "memory_unavailable". */
  transcripts?: Partial<TranscriptsAPI>;
  social?: Partial<SocialAPI>;
  /** What `pluginMgr.list()` starts with; default this plugin alone, running. */
  plugins?: PluginInfo[];
  /**
   * Answers of `auth` beyond `required` / `verify` (which follow `apiKey`); a method not given throws
   * (or rejects) with code "unavailable".
   */
  auth?: Partial<Omit<AuthAPI, "required" | "verify">>;
  knowledge?: Partial<KnowledgeAPI>;
  adapters?: Partial<AdaptersAPI>;
  /** What `llm.test` answers; default: it rejects with code "unavailable". */
  llmTest?: LlmAPI["test"];
  /** What `kernel.preview` answers; default: it rejects with code "unavailable". */
  preview?: (query: string) => Promise<ContextPreview>;
  /** Definitions for `config.defs`; default none. */
  configDefs?: ConfigDefInfo[];
  /** The user's answer to `ask`; default: nobody can answer (`{approved: false, reason: "no_client"}`). */
  approve?: (request: ApprovalRequest) => ApprovalOutcome | Promise<ApprovalOutcome>;
}

export interface MockSDK extends PluginSDK {
  readonly tools: Map<string, { def: ToolDef; handler: ToolHandler }>;
  readonly stages: Array<{ stage: Stage; handler: StageHandler; scope: StageScope }>;
  readonly channels: Map<
    string,
    { caps: readonly OutputCapability[]; description: string; handler: OutputHandler; opts?: OutputChannelOptions }
  >;
  readonly inputChannels: Map<string, InputChannelOptions>;
  readonly embeddingProviders: Map<string, EmbeddingFactory>;
  /** The handler the plugin gave `onForget`, if any: call it as the daemon's forget would. */
  readonly forgetHandler: ForgetHandler | undefined;
  /** Live subscriptions: an unsubscribed handler is removed. */
  readonly subscriptions: Array<{ type: EventType | "*"; handler: EventHandler }>;
  readonly published: Array<{ type: EventType; payload: Record<string, unknown> }>;
  readonly inputs: MockInput[];
  readonly interrupts: Array<{ source: string; channel: string; text: string }>;
  /** Every `send`, in order. */
  readonly sent: MockSent[];
  /** Every question passed to `ask`, in order. */
  readonly asked: ApprovalRequest[];
  readonly logs: Array<{ level: keyof Logger; msg: string }>;
  /** Checked by `auth`; change it at any time. "" = no key required. */
  apiKey: string;
  /** Chosen by `llm.use`; "" = priority order. */
  preferredSource: string;
  /** What the plugin last passed to `setAutoRestart`; default true. */
  autoRestart: boolean;
  /** Delivers an event to the plugin's subscribers, as the daemon's bus would. */
  emit(type: EventType, payload: Record<string, unknown>, source?: string): void;
  /** Calls a tool the plugin registered; throws if there is none by that name. */
  callTool(name: string, args?: Record<string, unknown>, ctx?: Partial<ToolContext>): Promise<unknown>;
}
