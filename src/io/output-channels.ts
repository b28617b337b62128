/**
 * Output channels: each registered channel becomes the tools `output_send__{name}` and
 * `output_send__{name}_help`; `output_list_channels` lists them all. Those names are checked with the tool
 * registry before a channel is accepted (a tool or another channel may already hold one: channel
 * `cli_help` would make `output_send__cli_help`, the help tool of channel `cli`). A send's result is the
 * handler's own result, so the model never sees a success that did not happen. A handler that reports
 * "no_client" (nobody connected) has the message kept in the channel's inbox instead.
 */
import {
  OUTPUT_CAPABILITIES,
  type OutputCapability,
  type OutputChannelOptions,
  type OutputHandler,
  type OutputMessage,
  type SendResult,
} from "@homeagent/sdk";
import type { ChannelTool, NameGuard, OutputChannel, OutputRegistry } from "../kernel/ports.js";
import { HomeAgentError } from "../util/errors.js";
import { withinTime } from "../util/time-limit.js";
import type { Inbox } from "./inbox.js";
import { OwnedChannels } from "./owned-channels.js";

/** What deliver() returns when the message went to the inbox instead. */
const KEPT = Symbol("kept in the inbox");

/** Where an unprompted message with `fallback` goes when its own channel is gone: the built-in clients. */
const FALLBACK_CHANNELS = ["webui", "cli"];

/** A handler that takes longer than this to deliver one message has failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** A channel registration refused because of the channel's own name. */
export class ChannelNameError extends HomeAgentError {}

/** The tool names a channel adds. */
export function channelToolNames(name: string): string[] {
  return [`output_send__${name}`, `output_send__${name}_help`];
}

const CHANNEL_NAME = /^[A-Za-z0-9_-]{1,40}$/;

/** The capabilities as given, each once, in OUTPUT_CAPABILITIES' order; anything else is refused. */
function checkCapabilities(caps: readonly unknown[]): OutputCapability[] {
  if (!Array.isArray(caps)) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: `output channel capabilities are a list such as ["text"], not ${JSON.stringify(caps)} (the bit flags CapText … of early SDK builds are gone)`,
    });
  }
  const unknown = caps.filter((c) => !OUTPUT_CAPABILITIES.includes(c as OutputCapability));
  if (unknown.length > 0) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: `unknown output channel capability ${JSON.stringify(unknown[0])}: use ${OUTPUT_CAPABILITIES.join(", ")}`,
    });
  }
  return OUTPUT_CAPABILITIES.filter((c) => caps.includes(c));
}

export class OutputChannels extends OwnedChannels<OutputChannel> implements OutputRegistry {
  /**
   * `guard` checks a new channel's tool names against every tool name in use; `inbox` keeps what a channel
   * was sent while nobody was connected (without it, "no_client" is the sender's error).
   */
  constructor(
    private readonly guard: NameGuard,
    private readonly inbox?: Inbox,
  ) {
    super();
  }

  register(
    owner: string,
    name: string,
    caps: readonly OutputCapability[],
    description: string,
    handler: OutputHandler,
    opts: OutputChannelOptions = {},
  ): void {
    if (!CHANNEL_NAME.test(name)) {
      throw new ChannelNameError({
        code: "channel_name_invalid",
        message: `invalid output channel name "${name}": use 1-40 letters, digits, "_" or "-"`,
      });
    }
    const existing = this.channels.get(name);
    if (existing) {
      throw new ChannelNameError({
        code: "channel_name_taken",
        message: `output channel "${name}" is already registered by plugin "${existing.owner}"; choose another name`,
      });
    }
    this.guard(channelToolNames(name), `output channel "${name}" of plugin "${owner}"`);
    const types = opts.types?.length ? opts.types : ["text"];
    const known = checkCapabilities(caps);
    this.channels.set(name, { name, owner, caps: known, description, types, help: opts.help ?? "", handler });
  }

  /** The handler's own result (`sent to <name>` when it gives none), or what the inbox kept. */
  async send(name: string, msg: OutputMessage): Promise<unknown> {
    const result = await this.deliver(name, msg);
    if (result === KEPT) return `nobody is connected to "${name}" now; kept in its inbox for when they are`;
    return result ?? `sent to ${name}`;
  }

  /**
   * Text sent outside any turn (sdk.send): delivered, or kept in the inbox. With `fallback`, a channel that is
   * gone hands it to the dashboard's, then the terminal's; a failure is thrown.
   */
  async sendUnprompted(name: string, text: string, kind: string, fallback = false): Promise<SendResult> {
    const targets = fallback ? [name, ...FALLBACK_CHANNELS.filter((c) => c !== name)] : [name];
    let failure: unknown;
    for (const channel of targets) {
      try {
        const result = await this.deliver(channel, { payload: text, meta: { kind }, type: "text", requestId: "" });
        if (result === KEPT) return { delivered: false, kept: true, channel };
        const detail = result ?? `sent to ${channel}`;
        return { delivered: true, detail: typeof detail === "string" ? detail : JSON.stringify(detail), channel };
      } catch (err) {
        failure = err;
        // Only a channel that is gone hands it on: one that failed or timed out may still deliver it.
        if ((err as { code?: unknown }).code !== "channel_not_found") break;
      }
    }
    throw failure;
  }

  private async deliver(name: string, msg: OutputMessage): Promise<unknown> {
    const ch = this.channels.get(name);
    if (!ch) {
      throw new HomeAgentError({
        code: "channel_not_found",
        message: `no output channel "${name}"; available: ${this.names().join(", ") || "(none)"}`,
      });
    }
    try {
      return await withinTime(
        Promise.resolve().then(() => ch.handler(msg)),
        DELIVERY_TIMEOUT_MS,
        () =>
          new HomeAgentError({
            code: "timeout",
            message: `output channel "${name}" did not deliver within ${DELIVERY_TIMEOUT_MS / 1000} s`,
          }),
      );
    } catch (err) {
      if (!this.inbox || (err as { code?: unknown })?.code !== "no_client") throw err;
      const kind = typeof msg.meta.kind === "string" ? msg.meta.kind : msg.reply ? "reply" : "message";
      this.inbox.put(name, kind, msg.payload);
      return KEPT;
    }
  }

  /** The tools the model uses to talk through channels; recomputed on every LLM cycle. */
  tools(): ChannelTool[] {
    const list: ChannelTool[] = [...this.channels.values()].flatMap((ch) => [this.sendTool(ch), this.helpTool(ch)]);
    list.push({
      owner: "kernel",
      origin: "the output channel list",
      def: {
        name: "output_list_channels",
        description: "List the output channels you can send messages through, with their capabilities.",
        parameters: { type: "object", properties: {} },
      },
      handler: () =>
        [...this.channels.values()].map((ch) => ({
          name: ch.name,
          caps: [...ch.caps],
          description: ch.description,
          tool: `output_send__${ch.name}`,
        })),
    });
    return list;
  }

  private sendTool(ch: OutputChannel): ChannelTool {
    return {
      owner: ch.owner,
      origin: `output channel "${ch.name}"`,
      def: {
        name: channelToolNames(ch.name)[0],
        description: `Send a message through the "${ch.name}" channel: ${ch.description}`,
        parameters: {
          type: "object",
          properties: {
            payload: { type: "string", description: "The message content." },
            meta: { type: "object", description: `Routing metadata; see output_send__${ch.name}_help.` },
            type: { type: "string", enum: ch.types, description: "Kind of payload." },
          },
          required: ["payload"],
        },
      },
      handler: (args, ctx) =>
        this.send(ch.name, {
          payload: String(args.payload),
          meta: (args.meta as Record<string, unknown>) ?? {},
          type: (args.type as string) ?? ch.types[0],
          requestId: ctx.requestId,
        }),
    };
  }

  private helpTool(ch: OutputChannel): ChannelTool {
    return {
      owner: ch.owner,
      origin: `output channel "${ch.name}"`,
      def: {
        name: channelToolNames(ch.name)[1],
        description: `Explain the meta fields and payload types of the "${ch.name}" channel.`,
        parameters: { type: "object", properties: {} },
      },
      handler: () =>
        [
          `channel: ${ch.name}`,
          `description: ${ch.description}`,
          `capabilities: ${ch.caps.join(", ") || "none"}`,
          `type: one of ${ch.types.join(", ")}`,
          ch.help || "meta: no routing fields; leave it empty.",
        ].join("\n"),
    };
  }
}
