/**
 * What one plugin may register, per run. Every tool definition is sent to the model with every turn and
 * every stage handler runs in every turn, so without a bound one plugin (in-process or over the wire) could
 * bloat the daemon's memory and slow down, or break, every user's turns. A plugin over a limit gets a
 * PluginLimitError naming the limit; what it registered before stays.
 */
import type { ToolDef } from "@homeagent/sdk";
import { checkNesting } from "../util/json-depth.js";
import { PluginLimitError } from "./errors.js";

export const PLUGIN_LIMITS = {
  tools: 128,
  stageHandlers: 64,
  outputChannels: 32,
  inputChannels: 32,
  /** A tool's {name, description, parameters} as JSON, in bytes. */
  toolDefBytes: 64 * 1024,
  /** How deeply a tool's `parameters` schema may nest (`{}` is one level). */
  toolParamsDepth: 32,
  /** A tool's or an output channel's description, and an output channel's help, in characters. */
  descriptionChars: 4096,
} as const;

type Counted = "tools" | "stageHandlers" | "outputChannels" | "inputChannels";

const WHAT: Record<Counted, string> = {
  tools: "tools",
  stageHandlers: "stage handlers",
  outputChannels: "output channels",
  inputChannels: "input channels",
};

/** One plugin's registrations in one run (a restart starts a new quota). */
export class RegistrationQuota {
  private readonly counts: Record<Counted, number> = {
    tools: 0,
    stageHandlers: 0,
    outputChannels: 0,
    inputChannels: 0,
  };

  constructor(
    private readonly plugin: string,
    private readonly maxTools: number = PLUGIN_LIMITS.tools,
  ) {}

  /** Runs `register` if the plugin is under its `kind` limit; counts it if it succeeded. */
  take<T>(kind: Counted, register: () => T): T {
    const cap = kind === "tools" ? this.maxTools : PLUGIN_LIMITS[kind];
    if (this.counts[kind] >= cap) {
      throw new PluginLimitError(
        this.plugin,
        `it already registered ${cap} ${WHAT[kind]}, the most one plugin may (limit ${kind} = ${cap}); register fewer`,
      );
    }
    const result = register();
    this.counts[kind]++;
    return result;
  }

  /** Gives back one of `kind` the plugin removed again (an unregistered tool). */
  release(kind: Counted): void {
    this.counts[kind] = Math.max(0, this.counts[kind] - 1);
  }

  /** Refuses a tool definition that is too large or nests too deeply, before anything recursive reads it. */
  checkTool(def: ToolDef): void {
    const refuse = (problem: string) => new PluginLimitError(this.plugin, `tool "${def.name}": ${problem}`);
    this.checkDescription(`tool "${def.name}" description`, def.description);
    const { toolDefBytes, toolParamsDepth } = PLUGIN_LIMITS;
    // No tree of at most toolDefBytes of JSON has more values than this; a larger walk is a larger schema.
    const verdict = checkNesting(def.parameters, toolParamsDepth, toolDefBytes / 2);
    if (verdict === "too_deep") {
      throw refuse(`its parameters nest deeper than ${toolParamsDepth} levels (limit toolParamsDepth)`);
    }
    const tooLarge = () =>
      refuse(`its definition is over ${toolDefBytes} bytes as JSON (limit toolDefBytes); shorten the schema`);
    if (verdict === "too_many") throw tooLarge();
    let json: string;
    try {
      json = JSON.stringify({ name: def.name, description: def.description, parameters: def.parameters });
    } catch (err) {
      throw new PluginLimitError(this.plugin, `tool "${def.name}": its parameters are not JSON`, err);
    }
    if (Buffer.byteLength(json) > toolDefBytes) throw tooLarge();
  }

  /** A description (or help text) over the limit is refused, not cut: the plugin should know. */
  checkDescription(what: string, text: string | undefined): void {
    const cap = PLUGIN_LIMITS.descriptionChars;
    if (typeof text === "string" && text.length > cap) {
      throw new PluginLimitError(
        this.plugin,
        `${what} is ${text.length} characters, over the ${cap}-character limit (descriptionChars)`,
      );
    }
  }
}
