/**
 * The parts the Agent is given rather than builds (src/kernel/ports.ts): the event bus, and the output and
 * input channel registries. One place that builds them, for the daemon and for tests that run an Agent.
 */
import type { Logger } from "@homeagent/sdk";
import { EventBus } from "../events/bus.js";
import { InputChannels } from "../io/input-channels.js";
import { OutputChannels } from "../io/output-channels.js";
import type { AgentOptions } from "../kernel/agent.js";
import { errorMessage } from "../util/errors.js";

export function agentParts(log: Logger): Pick<AgentOptions, "bus" | "channels"> {
  return {
    // A throwing subscriber is logged; it never reaches the publisher or the other subscribers.
    bus: new EventBus((err, ev) => log.warn(`event subscriber failed on ${ev.type}: ${errorMessage(err)}`)),
    channels: { outputs: (guard) => new OutputChannels(guard), inputs: new InputChannels() },
  };
}
