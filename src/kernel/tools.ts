/**
 * ToolRegistry: tools registered by plugins plus tools contributed by other sources (output channels),
 * re-aggregated on every LLM cycle. Every failure of a call becomes a result the model can read.
 */
import type { ToolCall, ToolCallStatus, ToolContext, ToolDef, ToolHandler } from "@homeagent/sdk";
import type { ToolSpec } from "../llm/provider.js";
import { validateArguments } from "./tool-args.js";

export interface RegisteredTool {
  def: ToolDef;
  handler: ToolHandler;
  owner: string;
}

/** Something that contributes tools computed on demand (e.g. one `output_send__*` per channel). */
export interface ToolSource {
  tools(): RegisteredTool[];
}

export interface ToolOutcome {
  content: string;
  status: ToolCallStatus;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_RESULT_CHARS = 100_000;

export class ToolRegistry {
  private readonly own = new Map<string, RegisteredTool>();
  private readonly sources: ToolSource[] = [];

  register(owner: string, def: ToolDef, handler: ToolHandler): void {
    if (!TOOL_NAME.test(def.name)) {
      throw new Error(`invalid tool name "${def.name}": use 1-64 letters, digits, "_" or "-"`);
    }
    const existing = this.get(def.name);
    if (existing) {
      throw new Error(`tool "${def.name}" is already registered by plugin "${existing.owner}"`);
    }
    this.own.set(def.name, { def, handler, owner });
  }

  unregisterPlugin(owner: string): number {
    let n = 0;
    for (const [name, tool] of this.own) {
      if (tool.owner === owner) {
        this.own.delete(name);
        n++;
      }
    }
    return n;
  }

  addSource(source: ToolSource): void {
    this.sources.push(source);
  }

  all(): RegisteredTool[] {
    return [...this.own.values(), ...this.sources.flatMap((s) => s.tools())];
  }

  get(name: string): RegisteredTool | undefined {
    return this.own.get(name) ?? this.sources.flatMap((s) => s.tools()).find((t) => t.def.name === name);
  }

  names(): string[] {
    return this.all()
      .map((t) => t.def.name)
      .sort();
  }

  specs(): ToolSpec[] {
    return this.all().map((t) => ({
      type: "function",
      function: { name: t.def.name, description: t.def.description, parameters: t.def.parameters },
    }));
  }

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
    try {
      const out = await tool.handler(call.arguments, ctx);
      return { status: "ok", content: truncate(stringify(out), MAX_RESULT_CHARS) };
    } catch (err) {
      return {
        status: "error",
        content: `error: tool ${call.name} failed: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
  }
}

function isJSONObject(text: string): boolean {
  if (text.trim() === "") return true;
  try {
    const v = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v);
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
