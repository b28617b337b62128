/**
 * Which MCP tool calls ask the user first (`plugin.mcp.approve`). A server says what its tools do with
 * annotations; by the MCP spec a tool that is not read-only is presumed destructive unless it says
 * otherwise. A tool annotated destructive asks in every mode: that is the one promise the setting keeps.
 */
import type { ApproveMode } from "./settings.js";

export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

export function needsApproval(mode: ApproveMode, hints: ToolHints | undefined): boolean {
  const readOnly = hints?.readOnlyHint === true;
  if (hints?.destructiveHint === true) return true;
  switch (mode) {
    case "always":
      return true;
    case "destructive":
      return !readOnly && hints?.destructiveHint !== false;
    default:
      return !readOnly;
  }
}

/** How the question names what the tool may do. */
export function riskOf(hints: ToolHints | undefined): string {
  if (hints?.destructiveHint === true) return "it may change or delete things";
  if (hints?.readOnlyHint === true) return "its server marks it read-only";
  return "its server does not mark it read-only";
}
