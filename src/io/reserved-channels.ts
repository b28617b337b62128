/**
 * Channel names of the daemon's own parts. Channels are first come, first served, so without this a plugin
 * could take "cli" before (or instead of) the built-in that uses it, and decide how its inputs are
 * remembered (an input channel "cli" marked NoMemory kept every cli turn out of long-term memory) or receive
 * what the model sends there. Each name below belongs to one built-in plugin (the architecture's list, so
 * a built-in that arrives later finds its name free), or to the daemon itself; names are compared without
 * case, so "CLI" cannot pass for "cli" in front of the model.
 */
import { HomeAgentError } from "../util/errors.js";

/** A channel registration refused because the name belongs to a built-in plugin or to the daemon. */
export class ChannelReservedError extends HomeAgentError {}

/** Channel name → the built-in plugin that may register it; "" = the daemon's own, registered by nobody. */
const RESERVED: ReadonlyMap<string, string> = new Map([
  ["cli", "cli"],
  ["webui", "webui"],
  ["http", "webui"],
  ["timer", "timer"],
  ["cmd", "cmd"],
  ["files", "files"],
  ["mcp", "mcp"],
  ["agentcli", "agentcli"],
  ["terminal", "agentcli"],
  ["healthcheck", "healthcheck"],
  ["cfgmgr", "cfgmgr"],
  ["multimodal", "multimodal"],
  ["system", ""],
  ["self", ""],
  ["kernel", ""],
]);

/** The built-in that owns `channel` ("" = the daemon), or undefined when the name is free for everyone. */
function ownerOf(channel: string): string | undefined {
  const name = channel.toLowerCase();
  // A leading "_" marks the daemon's internal channels (the self-task channel "_consolidation_").
  if (name.startsWith("_")) return "";
  return RESERVED.get(name);
}

/**
 * Throws ChannelReservedError unless `plugin` may register the `kind` channel `channel`: any plugin may
 * take a free name, only the built-in that owns a reserved one may take that.
 */
export function checkChannelClaim(kind: "input" | "output", channel: string, plugin: string, builtin: boolean): void {
  const owner = ownerOf(channel);
  if (owner === undefined || (builtin && owner === plugin)) return;
  const whose = owner === "" ? "the daemon's own" : `reserved for the built-in "${owner}" plugin`;
  throw new ChannelReservedError({
    code: "channel_name_reserved",
    message: `plugin "${plugin}" may not register ${kind} channel "${channel}": that name is ${whose}; choose another name (e.g. "${plugin}-${channel.toLowerCase().replace(/^_+/, "")}")`,
  });
}
