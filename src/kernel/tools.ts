/**
 * ToolRegistry: tools registered by plugins and the kernel, plus tools contributed by other sources (output
 * channels), re-aggregated on every LLM cycle. Tool names are unique across all of them — many providers
 * reject a request that lists one function twice — so every registration, from either side, is checked
 * against every name already given out, and the second one is refused. The daemon's own tools (owners
 * "kernel", "memory", "knowledge", "llm") and names reserved for such tools registered later can never be
 * taken by a plugin. Every failure of a
 * call becomes a result the model can read.
 */
import type { ToolCall, ToolCallStatus, ToolContext, ToolDef, ToolHandler, ToolInfo } from "@homeagent/sdk";
import { untilAborted } from "../util/abort.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { deleteOwned, isObject } from "../util/object.js";
import { runAsToolCall } from "../util/tool-scope.js";
import { linkAbort, stopMessage } from "./cancel.js";
import { validateArguments } from "./tool-args.js";

/** Owner of the kernel's own tools (tool_search, the output channel tools). */
export const KERNEL_OWNER = "kernel";

/** Owners of the daemon's own tools, by subsystem: their names are reserved, and no plugin may use these names. */
const CORE_OWNERS = [KERNEL_OWNER, "memory", "knowledge", "llm"] as const;
export type CoreOwner = (typeof CORE_OWNERS)[number];

export function isCoreOwner(owner: string): owner is CoreOwner {
  return (CORE_OWNERS as readonly string[]).includes(owner);
}

export interface RegisteredTool {
  def: ToolDef;
  handler: ToolHandler;
  owner: string;
  /** What made the tool, for error messages, when it is not a plain registration (e.g. an output channel). */
  origin?: string;
}

/** Something that contributes tools computed on demand (e.g. one `output_send__*` per channel). */
export interface ToolSource {
  tools(): RegisteredTool[];
}

export interface ToolOutcome {
  content: string;
  status: ToolCallStatus;
}

/** A tool call in progress: its turn's channel, and the signal that ends it. */
export interface RunningCall {
  signal: AbortSignal;
  channel: string;
}

/** A tool or channel registration refused because of its name. */
export class ToolNameError extends HomeAgentError {}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_RESULT_CHARS = 100_000;

export class ToolRegistry {
  private readonly own = new Map<string, RegisteredTool>();
  private readonly reserved = new Set<string>();
  private readonly sources: ToolSource[] = [];
  /** The calls running now, by request id: who may ask the user on that request's behalf, and until when. */
  private readonly running = new Map<string, Array<{ owner: string; call: RunningCall }>>();

  /**
   * Reserves names for kernel tools that register later (e.g. once retrieval is ready, after plugins have
   * started): a plugin asking for one is refused from now on.
   */
  reserve(names: string[]): void {
    for (const name of names) this.reserved.add(name);
  }

  /** Registers a tool; `owner` is the plugin's name, or a CoreOwner for the daemon's own tools. */
  register(owner: string, def: ToolDef, handler: ToolHandler): void {
    if (!TOOL_NAME.test(def.name)) {
      throw new ToolNameError({
        code: "tool_name_invalid",
        message: `invalid tool name "${def.name}": use 1-64 letters, digits, "_" or "-"`,
      });
    }
    const core = isCoreOwner(owner);
    this.check(def.name, `tool "${def.name}" of ${ownerText(owner)}`, core);
    this.own.set(def.name, { def, handler, owner });
    if (core) this.reserved.add(def.name);
  }

  /**
   * Throws a ToolNameError unless none of `names` is in use or reserved. Tool sources call it before they
   * start generating names (an output channel before it registers), so a name is never given out twice.
   */
  assertFree(names: string[], claimant: string): void {
    for (const name of names) this.check(name, claimant, false);
  }

  private check(name: string, claimant: string, core: boolean): void {
    if (!core && this.reserved.has(name)) {
      throw new ToolNameError({
        code: "tool_name_reserved",
        message: `${claimant} is refused: "${name}" is reserved for a kernel tool; choose another name`,
      });
    }
    const holder = this.get(name);
    if (holder) {
      throw new ToolNameError({
        code: "tool_name_taken",
        message: `${claimant} is refused: the tool name "${name}" is already registered by ${holderText(holder)}; choose another name`,
      });
    }
  }

  /** Removes `owner`'s tool `name`; false when `owner` has no tool of that name. */
  unregister(owner: string, name: string): boolean {
    if (this.own.get(name)?.owner !== owner) return false;
    return this.own.delete(name);
  }

  unregisterPlugin(owner: string): number {
    return deleteOwned(this.own, owner);
  }

  addSource(source: ToolSource): void {
    this.sources.push(source);
  }

  all(): RegisteredTool[] {
    return [...this.own.values(), ...this.sources.flatMap((s) => s.tools())];
  }

  /** Every tool as plugins see it (kernel.tools()), sorted by name. */
  infos(): ToolInfo[] {
    return this.all()
      .map(({ def, owner }) => ({
        name: def.name,
        description: def.description,
        parameters: def.parameters,
        owner,
        noMemory: def.noMemory === true,
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  get(name: string): RegisteredTool | undefined {
    return this.own.get(name) ?? this.sources.flatMap((s) => s.tools()).find((t) => t.def.name === name);
  }

  names(): string[] {
    return this.all()
      .map((t) => t.def.name)
      .sort();
  }

  /** Runs a call; a tool that ignores `ctx.signal` is abandoned when the signal fires. */
  async execute(call: ToolCall, ctx: ToolContext): Promise<ToolOutcome> {
    const tool = this.get(call.name);
    if (!tool) {
      return {
        status: "unknown_tool",
        content: `error: unknown tool "${call.name}". Available tools: ${this.names().join(", ") || "(none)"}`,
      };
    }
    if (call.rawArguments !== undefined && !isJSONObject(call.rawArguments)) {
      return {
        status: "error",
        content: `error: the arguments for ${call.name} are not a valid JSON object: ${truncate(call.rawArguments, 200)}. Call the tool again with a JSON object.`,
      };
    }
    const invalid = validateArguments(tool.def.parameters, call.arguments);
    if (invalid) return { status: "error", content: `error: invalid arguments for ${call.name}: ${invalid}` };
    // Its own signal, ended with the call: what the call started on its behalf (a question to the user)
    // ends when it returns, not only when the turn is stopped.
    const ended = new AbortController();
    const unlink = linkAbort(ended, [ctx.signal]);
    const entry = { owner: tool.owner, call: { signal: ended.signal, channel: ctx.channel } };
    const calls = this.running.get(ctx.requestId) ?? [];
    calls.push(entry);
    this.running.set(ctx.requestId, calls);
    try {
      const out = await untilAborted(
        async () =>
          runAsToolCall({ requestId: ctx.requestId, tool: call.name }, () => tool.handler(call.arguments, ctx)),
        ctx.signal,
        (reason) => new HomeAgentError({ code: "cancelled", message: stopMessage(reason) }),
      );
      return { status: "ok", content: truncate(stringify(out), MAX_RESULT_CHARS) };
    } catch (err) {
      return { status: "error", content: `error: tool ${call.name} failed: ${errorMessage(err)}` };
    } finally {
      unlink();
      ended.abort(new HomeAgentError({ code: "cancelled", message: `the call of ${call.name} has ended` }));
      calls.splice(calls.indexOf(entry), 1);
      if (calls.length === 0) this.running.delete(ctx.requestId);
    }
  }

  /**
   * A call of `owner`'s tools running now in request `requestId`, or undefined: a plugin may ask the user
   * only on behalf of its own running call, and the question ends with it.
   */
  runningCall(requestId: string, owner: string): RunningCall | undefined {
    return this.running.get(requestId)?.find((c) => c.owner === owner)?.call;
  }
}

function ownerText(owner: string): string {
  if (owner === KERNEL_OWNER) return "the kernel";
  return isCoreOwner(owner) ? `the daemon's ${owner}` : `plugin "${owner}"`;
}

function holderText(tool: RegisteredTool): string {
  return tool.origin ? `${tool.origin} of ${ownerText(tool.owner)}` : ownerText(tool.owner);
}

function isJSONObject(text: string): boolean {
  if (text.trim() === "") return true;
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

function stringify(out: unknown): string {
  if (out === undefined || out === null) return "ok";
  return typeof out === "string" ? out : JSON.stringify(out);
}

function truncate(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… [truncated ${s.length - max} chars]`;
}
