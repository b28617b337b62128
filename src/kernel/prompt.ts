/**
 * The system prompt and the timeline message. The built-in persona is the original's "小宅 / Xiao Zhai";
 * `core.agent.system_prompt` replaces it and `core.agent.personal_prompt` adds to it. "Current time" and
 * every timeline row are dated in one zone (`core.agent.timezone`), so the model can compare them.
 */
import { formatInZone, zoneOffset } from "../util/time-zone.js";
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
  /** IANA zone of every time shown. */
  zone: string;
}

export function buildSystemPrompt(p: PromptParts): string {
  const lines = [p.systemPrompt.trim() || DEFAULT_SYSTEM_PROMPT];
  if (p.personalPrompt.trim()) lines.push("", p.personalPrompt.trim());
  lines.push(
    "",
    `Current time: ${currentTime(p.now.getTime(), p.zone)}.`,
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

/** `2025-01-31 08:05:09 +08:00 (Asia/Shanghai)`. */
export function currentTime(ms: number, zone: string): string {
  return `${formatInZone(ms, zone)} ${zoneOffset(ms, zone)} (${zone})`;
}

/** Start of the timeline message; the budget code finds the message by it. */
export const TIMELINE_HEADER = "【对话时序 / conversation timeline】";

/**
 * One timeline row: `[YYYY-MM-DD HH:MM:SS] source: text`, in `zone`. An input whose turn failed says so,
 * so the model neither takes it as answered nor reads an error as its own earlier words.
 */
export function timelineRow(e: ContextEvent, zone: string): string {
  const who = e.role === "user" ? e.source : "you";
  const tools = e.tools?.length ? ` → tools: ${e.tools.join(", ")} →` : "";
  const unanswered = e.unanswered ? ` (not answered: ${e.unanswered})` : "";
  return `[${formatInZone(e.ts, zone)}] ${who}:${tools} ${e.text}${unanswered}`;
}

/** The timeline message from rows (timelineRow) oldest-first; "" when there are none. */
export function renderTimeline(rows: string[], zone: string): string {
  if (rows.length === 0) return "";
  return `${TIMELINE_HEADER} (${zone})\n${rows.join("\n")}`;
}
