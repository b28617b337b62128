/**
 * What the kernel is given rather than builds: the event bus (src/events/) and the output and input
 * channel registries (src/io/). Declared here, as the kernel's LLM spec is, so the kernel imports no other
 * folder; the daemon (and the test harness) construct the real ones and hand them to the Agent.
 */
import type {
  EventHandler,
  EventType,
  InputChannelOptions,
  OutputCapability,
  OutputChannelOptions,
  OutputHandler,
  OutputMessage,
  ToolDef,
  ToolHandler,
} from "@homeagent/sdk";

export interface BusStats {
  /** Events published since start: the last `seq`. */
  published: number;
  /** Handlers subscribed now; one subscribed to two types counts twice. */
  subscribers: number;
}

/** Sequence-numbered events: the kernel publishes each step of a turn; plugins and clients subscribe. */
export interface KernelBus {
  /** Returns the unsubscribe function. */
  subscribe(type: EventType | "*", handler: EventHandler): () => void;
  publish(type: EventType, source: string, payload: Record<string, unknown>): void;
  stats(): BusStats;
}

/** Throws unless every tool name is free; `claimant` names the registration in the error. */
export type NameGuard = (names: string[], claimant: string) => void;

export interface OutputChannel {
  name: string;
  owner: string;
  caps: OutputCapability[];
  description: string;
  types: string[];
  help: string;
  handler: OutputHandler;
}

/** A tool a channel adds (`output_send__<name>` and its help), or the channel list. */
export interface ChannelTool {
  def: ToolDef;
  handler: ToolHandler;
  owner: string;
  origin: string;
}

/** The channels the model sends through; each becomes tools, checked against every tool name by `guard`. */
export interface OutputRegistry {
  register(
    owner: string,
    name: string,
    caps: readonly OutputCapability[],
    description: string,
    handler: OutputHandler,
    opts?: OutputChannelOptions,
  ): void;
  unregisterPlugin(owner: string): number;
  get(name: string): OutputChannel | undefined;
  names(): string[];
  send(name: string, msg: OutputMessage): Promise<unknown>;
  tools(): ChannelTool[];
}

export interface InputChannel {
  name: string;
  owner: string;
  noMemory: boolean;
  cleaner?: (input: string) => string | Promise<string>;
}

/** What plugins declared about the inputs they inject on a channel (noMemory, cleaner). */
export interface InputRegistry {
  register(owner: string, name: string, opts?: InputChannelOptions): void;
  unregisterPlugin(owner: string): number;
  get(name: string): InputChannel | undefined;
}
