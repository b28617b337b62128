/**
 * The daemon tools that stand for one server's MCP tools: `<server>_<tool>`, with the server's input schema
 * and an `[MCP/<server>]` description, registered when the server lists them and unregistered when it drops
 * them, goes away, or the user disables them. A tool that cannot be registered (its name collides, its
 * schema is too large) is left out and the reason kept for the status, never silently.
 */
import { type PluginSDK, SdkError, type ToolDef, type ToolHandler } from "@homeagent/sdk";
import type { ToolHints } from "./approval.js";
import type { McpTool } from "./connection.js";
import { cleanText, hasHidden, toolDescription, toolName } from "./names.js";

export interface ListedTool {
  /** The name the model calls. */
  name: string;
  /** The server's own name for it. */
  tool: string;
  description: string;
  hints: ToolHints;
  enabled: boolean;
  /** Why it is not registered, when it is enabled but left out. */
  problem?: string;
}

export type CallTool = (tool: McpTool) => ToolHandler;

export class McpToolSet {
  /** Registered now: daemon name → the definition as registered (to see what changed). */
  private readonly registered = new Map<string, string>();
  private listed: ListedTool[] = [];
  /** What the server listed last. */
  private offered: McpTool[] = [];
  /** Tools left out, and why, as last logged. */
  private warned = new Set<string>();

  constructor(
    private readonly sdk: PluginSDK,
    readonly server: string,
    private readonly call: CallTool,
    private disabled: ReadonlySet<string>,
    /** How many tools this server may have registered: its share of the plugin's limit. */
    private readonly share: () => number = () => Number.POSITIVE_INFINITY,
  ) {}

  /** The user switched other tools off (or on): registered anew from the list the server gave. */
  disable(disabled: ReadonlySet<string>): void {
    if (disabled.size === this.disabled.size && [...disabled].every((name) => this.disabled.has(name))) return;
    this.disabled = disabled;
    this.sync(this.offered);
  }

  /** Makes the registered tools those of `tools` the user has not disabled. */
  sync(tools: McpTool[]): void {
    this.offered = tools;
    const disabled = this.disabled;
    const wanted = new Map<string, { def: ToolDef; tool: McpTool; print: string }>();
    const listed: ListedTool[] = [];
    for (const tool of tools) {
      const name = toolName(this.server, tool.name);
      const entry: ListedTool = {
        name,
        tool: cleanText(tool.name, 256),
        description: cleanText(tool.description ?? tool.title, 300),
        hints: { readOnlyHint: tool.annotations?.readOnlyHint, destructiveHint: tool.annotations?.destructiveHint },
        enabled: !disabled.has(tool.name),
      };
      listed.push(entry);
      if (!entry.enabled) continue;
      if (wanted.has(name)) {
        entry.problem = `its name ${name} is the same as another tool's of this server once made safe; rename one on the server`;
        continue;
      }
      if (wanted.size >= this.share()) {
        entry.problem = `over this server's share of tools (${this.share()}); disable some of its tools, or some servers`;
        continue;
      }
      try {
        const def = defOf(name, this.server, tool);
        // What the handler acts on too: a tool re-listed as destructive must ask from then on.
        const print = JSON.stringify([def, tool.name, tool.annotations ?? null]);
        wanted.set(name, { def, tool, print });
      } catch (err) {
        entry.problem = (err as Error).message;
      }
    }
    for (const name of [...this.registered.keys()]) {
      const next = wanted.get(name);
      if (next && next.print === this.registered.get(name)) wanted.delete(name);
      else this.drop(name);
    }
    for (const [name, { def, tool, print }] of wanted) {
      try {
        this.sdk.registerTool(def, this.call(tool));
        this.registered.set(name, print);
      } catch (err) {
        const entry = listed.find((l) => l.name === name && !l.problem);
        if (entry) entry.problem = (err as Error).message;
      }
    }
    this.warnNew(listed);
    this.listed = listed;
  }

  /** Each tool left out is logged once per reason, however often the server lists it again. */
  private warnNew(listed: ListedTool[]): void {
    const now = new Set<string>();
    for (const { name, problem } of listed) {
      if (!problem) continue;
      const key = `${name}\u0000${problem}`;
      now.add(key);
      if (!this.warned.has(key)) this.sdk.log.warn(`mcp: tool ${name} of server "${this.server}" left out: ${problem}`);
    }
    this.warned = now;
  }

  /** Every tool the server listed, registered or not, with why not. */
  tools(): ListedTool[] {
    return this.listed.map((t) => ({
      ...t,
      ...(t.enabled && !t.problem && !this.registered.has(t.name) ? { problem: "not registered" } : {}),
    }));
  }

  count(): number {
    return this.registered.size;
  }

  /** Unregisters all of them (the server was removed or is restarted by hand). */
  clear(): void {
    this.offered = [];
    this.listed = [];
    for (const name of [...this.registered.keys()]) this.drop(name);
  }

  private drop(name: string): void {
    this.sdk.unregisterTool(name);
    this.registered.delete(name);
  }
}

/** Deeper schemas are refused by the daemon's registration limits anyway; cleaning stops there. */
const MAX_DEPTH = 32;

/** Schema words that are only read (by the model), so cleaning them changes no call. */
const PROSE = new Set(["description", "title", "examples", "default", "$comment"]);

/**
 * The schema as prompt text may hold it: descriptions, titles, examples and defaults cleaned of hidden
 * characters. Names and allowed values are what a call must send back, so one that holds hidden
 * characters cannot be cleaned: the tool is refused (thrown) instead.
 */
function cleanSchema(node: unknown, depth = 0, prose = false): unknown {
  if (typeof node === "string") {
    if (prose) return cleanText(node);
    if (hasHidden(node))
      throw new SdkError({
        code: "invalid_argument",
        message: `its schema holds hidden characters in ${JSON.stringify(cleanText(node, 60))}`,
      });
    return node;
  }
  if (depth > MAX_DEPTH || node === null || typeof node !== "object") return node;
  if (Array.isArray(node)) return node.map((item) => cleanSchema(item, depth + 1, prose));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (hasHidden(key))
      throw new SdkError({
        code: "invalid_argument",
        message: `its schema has a name with hidden characters, ${JSON.stringify(cleanText(key, 60))}`,
      });
    out[key] = cleanSchema(value, depth + 1, prose || PROSE.has(key));
  }
  return out;
}

function defOf(name: string, server: string, tool: McpTool): ToolDef {
  const given = tool.inputSchema && typeof tool.inputSchema === "object" ? tool.inputSchema : {};
  const schema = cleanSchema(given) as Record<string, unknown>;
  return {
    name,
    description: toolDescription(server, tool.title ?? tool.annotations?.title, tool.description),
    // Providers want an object schema at the top; a server's own schema stays as it is below that.
    parameters: { ...schema, type: "object", properties: (schema.properties as object | undefined) ?? {} },
  };
}
