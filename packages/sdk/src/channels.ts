/**
 * Output and input channels: what a channel can deliver, the messages its handler gets, and how memory
 * treats what a plugin injects. Part of `@homeagent/sdk`, re-exported by index.ts.
 */

/** What an output channel can deliver: `registerOutputChannel("lamp", ["text"], …)`. */
export type OutputCapability = "text" | "file" | "image" | "audio" | "structured";

/** Every OutputCapability, in the order status listings show them. */
export const OUTPUT_CAPABILITIES: readonly OutputCapability[] = ["text", "file", "image", "audio", "structured"];

export interface OutputMessage {
  payload: string;
  meta: Record<string, unknown>;
  type: string;
  requestId: string;
  /**
   * true: the reply of a turn (it is also published as `agent_output`). Absent: a message the agent sent on
   * its own with the channel's `output_send__<name>` tool, which no event carries.
   */
  reply?: boolean;
}

export type OutputHandler = (msg: OutputMessage) => unknown | Promise<unknown>;

/** What the daemon should know about the inputs a plugin injects on one channel. */
export interface InputChannelOptions {
  /**
   * Inputs of this channel stay out of long-term memory: kept verbatim in the context window, never
   * vectorised and never archived.
   */
  noMemory?: boolean;
  /**
   * Turns a raw input into the text memory computes with (vectors, prune ranking); the stored input and
   * what the model reads stay as they arrived. It may be async; if it throws or takes over 2 s, the raw
   * input is used and the failure is logged.
   */
  cleaner?: (input: string) => string | Promise<string>;
}

export interface OutputChannelOptions {
  /** Values allowed for the `type` parameter; default ["text"]. */
  types?: string[];
  /** Help text returned by `output_send__{name}_help` (meta fields, routing). */
  help?: string;
}
