/**
 * The parts the Agent is given rather than builds (src/kernel/ports.ts): the event bus, and the output and
 * input channel registries. One place that builds them, for the daemon and for tests that run an Agent.
 * With an inbox, a channel nobody is connected to keeps what it is sent; `send` is the SDK's unprompted
 * delivery through the same registry, and `onSent` hears of each such message (the transcript keeps it).
 */
import type { Logger, SendResult } from "@homeagent/sdk";
import { EventBus } from "../events/bus.js";
import type { Inbox } from "../io/inbox.js";
import { InputChannels } from "../io/input-channels.js";
import { OutputChannels } from "../io/output-channels.js";
import type { AgentOptions } from "../kernel/agent.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";

export type UnpromptedSend = (channel: string, text: string, kind: string, fallback: boolean) => Promise<SendResult>;

/** A message sent outside a turn, where it went (delivered or kept): for the transcript. */
export type SentMessage = { channel: string; kind: string; text: string };

export function agentParts(
  log: Logger,
  inbox?: Inbox,
  onSent?: (message: SentMessage) => void,
): Pick<AgentOptions, "bus" | "channels"> & { send: UnpromptedSend } {
  let outputs: OutputChannels | undefined;
  return {
    // A throwing subscriber is logged; it never reaches the publisher or the other subscribers.
    bus: new EventBus((err, ev) => log.warn(`event subscriber failed on ${ev.type}: ${errorMessage(err)}`)),
    channels: {
      outputs: (guard) => {
        outputs = new OutputChannels(guard, inbox);
        return outputs;
      },
      inputs: new InputChannels(),
    },
    send: async (channel, text, kind, fallback) => {
      if (!outputs) throw new HomeAgentError({ code: "unavailable", message: "the agent has not started yet" });
      const result = await outputs.sendUnprompted(channel, text, kind, fallback);
      // It was delivered: a failure to record it must not make the sender think otherwise (and send again).
      try {
        onSent?.({ channel: result.channel, kind, text });
      } catch (err) {
        log.warn(`a message sent to "${result.channel}" could not be recorded in the transcript: ${errorMessage(err)}`);
      }
      return result;
    },
  };
}
