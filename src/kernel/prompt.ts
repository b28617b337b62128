/**
 * The system prompt and the timeline message. The built-in persona is the original's "小宅 / Xiao Zhai";
 * `core.agent.system_prompt` replaces it and `core.agent.personal_prompt` adds to it.
 */
import type { ContextEvent } from "./types.js";

export const DEFAULT_SYSTEM_PROMPT = [
  "你是小宅 (Xiao Zhai)，一个运行在用户自己机器上的私人助理。You are Xiao Zhai, a personal assistant running on the user's own machine.",
  "Answer in the user's language (中文或 English). Be concise and concrete; use kaomoji such as (・ω・) instead of emoji.",
  "Use tools when they help; read tool results carefully and say plainly when a tool failed.",
].join("\n");

export interface PromptParts {
  systemPrompt: string;
  personalPrompt: string;
  channel: string;
  outputChannels: string[];
  now: Date;
}

export function buildSystemPrompt(p: PromptParts): string {
  const lines = [p.systemPrompt.trim() || DEFAULT_SYSTEM_PROMPT];
  if (p.personalPrompt.trim()) lines.push("", p.personalPrompt.trim());
  lines.push(
    "",
    `Current time: ${p.now.toISOString()}.`,
    `Your final text reply goes back automatically through the input's channel "${p.channel}".`,
  );
  const others = p.outputChannels.filter((c) => c !== p.channel);
  if (others.length > 0) {
    lines.push(
      `To reach another channel (${others.join(", ")}), call output_send__<channel>; call output_send__<channel>_help for its fields. Split long messages.`,
    );
  }
  return lines.join("\n");
}

/** First line of the timeline message; the budget code finds the message by it. */
export const TIMELINE_HEADER = "【对话时序 / conversation timeline】";

/** One timeline row: `[HH:MM:SS] source: text`. */
export function timelineRow(e: ContextEvent): string {
  const time = new Date(e.ts).toTimeString().slice(0, 8);
  const who = e.role === "user" ? e.source : "you";
  const tools = e.tools?.length ? ` → tools: ${e.tools.join(", ")} →` : "";
  return `[${time}] ${who}:${tools} ${e.text}`;
}

/** Renders the recent timeline oldest-first. */
export function renderTimeline(events: ContextEvent[]): string {
  if (events.length === 0) return "";
  return `${TIMELINE_HEADER}\n${events.map(timelineRow).join("\n")}`;
}
