/**
 * What of a context event is searchable: one definition shared by the window (`ctx:` items) and the
 * archived turns (`turn:` items), so an event ranks the same before and after it is archived. The stored
 * text is never cleaned; only this derived text is.
 */
import type { ContextEvent } from "../kernel/types.js";

type VectorSource = Pick<ContextEvent, "kind" | "input" | "response" | "toolResults" | "noMemory" | "cleanInput">;

/**
 * The three branches: an agent event is what the agent said, a cold_storage event the whole recalled turn,
 * a user event what the user said (after the channel's cleaner) plus the tool results that are not
 * NoMemory (after the tool's cleaner). A NoMemory event has no searchable text at all ("").
 */
export function vectorText(e: VectorSource): string {
  if (e.noMemory) return "";
  if (e.kind === "agent") return e.response.trim();
  if (e.kind === "cold_storage") return `${e.input} ${e.response}`.trim();
  const parts = [e.cleanInput ?? e.input];
  for (const r of e.toolResults) if (!r.noMemory) parts.push(r.clean ?? r.content);
  return parts.join(" ").trim();
}

/** One archived turn as it reads in a document's verbatim content, with its date (UTC, ISO 8601). */
export function turnLine(t: { ts: number; source: string; input: string; response: string }): string {
  const head = `[${new Date(t.ts).toISOString()}] ${t.source}`;
  if (!t.input) return `${head}: ${t.response}`;
  return t.response ? `${head}: ${t.input}\n→ ${t.response}` : `${head}: ${t.input}`;
}
