/**
 * The seven stage hooks and what a stage handler reads and changes (StageContext): tool calls, their
 * results, token usage. Part of `@homeagent/sdk`, re-exported by index.ts.
 */

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

/**
 * What a stage handler reads and changes. The handlers of one stage run concurrently, and each gets a
 * private copy: it sees its own changes, never another handler's of the same run. What it changed is
 * recorded as a patch (set a field, append to `contextMsgs`, edit / drop / add a tool call by id, replace a
 * tool result, merge `extra` keys) and applied when every handler of the stage has settled, in registration
 * order: appends all survive; when two handlers set the same field to different values the later
 * registration wins (and the daemon logs the conflict). A handler that throws or times out changes
 * nothing, and writes after it settled are ignored. Objects that are not plain data (a Map, a class
 * instance) in `extra` are shared, not copied. Subprocess plugins get the same semantics over RPC.
 *
 * Tool calls: any handler may edit the arguments of a call that is there or drop it (that is what a
 * guard does; a dropped call stays dropped), but it may add calls only of its own plugin's tools — a patch
 * adding another plugin's tool (or the kernel's) is refused whole, as that handler's error.
 * Bounds: a patch is refused whole when a value in it nests deeper than 32 levels, one operation is over
 * 256 KiB as JSON, it uses the key "__proto__", "constructor" or "prototype" anywhere, or it would grow
 * `extra` over 256 KiB or `contextMsgs` over 256 messages / 256 KiB. A handler of a plugin marked
 * critical that fails (throws, times out, or its patch is refused) sets `response` to a refusal instead.
 */
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
  /**
   * Aborted when this handler's deadline (`core.plugin.stage_timeout`) passes or the input is cancelled;
   * the stage has then gone on without it. Read it when the handler starts and pass it to anything slow
   * the handler awaits.
   */
  signal: AbortSignal;
}

export type StageHandler = (ctx: StageContext) => void | Promise<void>;
