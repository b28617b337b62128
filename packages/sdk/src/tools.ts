/**
 * A tool as a plugin registers it (ToolDef: JSON Schema parameters, memory options) and how it is called.
 * Part of `@homeagent/sdk`, re-exported by index.ts.
 */

/** JSON Schema object describing a tool's parameters. */
export type JSONSchema = Record<string, unknown>;

export interface ToolDef {
  name: string;
  description: string;
  parameters: JSONSchema;
  /**
   * The tool's output stays out of long-term memory: it is kept verbatim with its turn in the context
   * window, but never vectorised and never archived (e.g. terminal output, secrets, bulk listings).
   */
  noMemory?: boolean;
  /**
   * Turns the tool's output into the text memory computes with (vectors, prune ranking), e.g. stripping
   * markup or boilerplate. The stored output and what the model reads stay as they were. It may be async;
   * if it throws or takes over 2 s, the raw output is used and the failure is logged.
   */
  cleaner?: (output: string) => string | Promise<string>;
}

export interface ToolContext {
  requestId: string;
  source: string;
  channel: string;
  signal: AbortSignal;
}

export type ToolHandler = (args: Record<string, unknown>, ctx: ToolContext) => unknown | Promise<unknown>;

/** A registered tool as `kernel.tools()` lists it. */
export interface ToolInfo {
  name: string;
  description: string;
  parameters: JSONSchema;
  /** The plugin that registered it, or the daemon's part ("kernel", "memory", "knowledge", "llm"). */
  owner: string;
  noMemory: boolean;
}
