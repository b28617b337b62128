/**
 * Input channels: what a plugin declares about the inputs it injects on a channel. `noMemory` keeps every
 * input of the channel verbatim in the context window but out of vectors and archives (terminal output,
 * sensor chatter); `cleaner` turns raw input into the text memory computes with (vectors, prune ranking),
 * while the stored input stays as it arrived (it may be async; the kernel bounds it). A channel without a
 * registration is an ordinary one.
 */
import type { InputChannelOptions } from "@homeagent/sdk";
import type { InputChannel, InputRegistry } from "../kernel/ports.js";
import { HomeAgentError } from "../util/errors.js";
import { OwnedChannels } from "./owned-channels.js";

export class InputChannelError extends HomeAgentError {}

const CHANNEL_NAME = /^[A-Za-z0-9_-]{1,40}$/;
const MAX_CHANNELS = 256;

export class InputChannels extends OwnedChannels<InputChannel> implements InputRegistry {
  register(owner: string, name: string, opts: InputChannelOptions = {}): void {
    if (!CHANNEL_NAME.test(name)) {
      throw new InputChannelError({
        code: "channel_name_invalid",
        message: `invalid input channel name "${name}": use 1-40 letters, digits, "_" or "-"`,
      });
    }
    const existing = this.channels.get(name);
    if (existing) {
      throw new InputChannelError({
        code: "channel_name_taken",
        message: `input channel "${name}" is already registered by plugin "${existing.owner}"; choose another name`,
      });
    }
    if (this.channels.size >= MAX_CHANNELS) {
      throw new InputChannelError({
        code: "channel_limit",
        message: `too many input channels (${MAX_CHANNELS}); unregister one before adding "${name}"`,
      });
    }
    if (opts.cleaner !== undefined && typeof opts.cleaner !== "function") {
      throw new InputChannelError({
        code: "channel_cleaner_invalid",
        message: `the cleaner of input channel "${name}" must be a function (string) => string (or a Promise of one)`,
      });
    }
    this.channels.set(name, { name, owner, noMemory: opts.noMemory === true, cleaner: opts.cleaner });
  }
}
