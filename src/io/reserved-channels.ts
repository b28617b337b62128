/**
 * Channel names of the daemon's own parts. Channels are first come, first served, so without this a plugin
 * could take "cli" before (or instead of) the built-in that uses it, and decide how its inputs are
 * remembered (an input channel "cli" marked NoMemory kept every cli turn out of long-term memory) or receive
 * what the model sends there. Each name below belongs to one built-in plugin (the architecture's list, so
 * a built-in that arrives later finds its name free), or to the daemon itself; names are compared without
 * case, so "CLI" cannot pass for "cli" in front of the model. Injecting input follows the same rule, for
 * the channel and the source: else a plugin with "io" could speak as the user at the terminal (source and
 * channel "cli"), and the model and memory would take its words for theirs.
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
  // " cli" or a full-width "ｃｌｉ" shows as "cli" in a timeline as well.
  const name = channel.normalize("NFKC").trim().toLowerCase();
  // A leading "_" marks the daemon's internal channels (the self-task channel "_consolidation_").
  if (name.startsWith("_")) return "";
  return RESERVED.get(name);
}

/**
 * Throws ChannelReservedError unless `plugin` may use `name` (given as `given`) to `what`: any plugin may
 * use a free name, only the built-in that owns a reserved one may use that.
 */
function checkClaim(what: string, name: string, given: string, plugin: string, builtin: boolean): void {
  const owner = ownerOf(name);
  if (owner === undefined || (builtin && owner === plugin)) return;
  const whose = owner === "" ? "the daemon's own" : `reserved for the built-in "${owner}" plugin`;
  throw new ChannelReservedError({
    code: "channel_name_reserved",
    message: `plugin "${plugin}" may not ${what} "${given}": that name is ${whose}; choose another name (e.g. "${plugin}-${name.toLowerCase().replace(/^_+/, "")}")`,
  });
}

/** Throws ChannelReservedError unless `plugin` may register the `kind` channel `channel`. */
export function checkChannelClaim(kind: "input" | "output", channel: string, plugin: string, builtin: boolean): void {
  checkClaim(`register ${kind} channel`, channel, channel, plugin, builtin);
}

/**
 * Throws ChannelReservedError unless `plugin` may inject as `source` on `channel`. A source is named by its
 * first segment: "webui/phone" (a device of the web UI) is webui's, "kernel:x" the daemon's.
 */
export function checkInjectClaim(source: string, channel: string, plugin: string, builtin: boolean): void {
  checkClaim("inject input as source", source.split(/[/:]/, 1)[0], source, plugin, builtin);
  checkClaim("inject input on channel", channel, channel, plugin, builtin);
}
