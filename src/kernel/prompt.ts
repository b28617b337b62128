/**
 * The texts of the prompt's sections. The built-in persona is the original's "小宅 / Xiao Zhai";
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

/** The persona section: who the agent is. */
export function personaText(systemPrompt: string, personalPrompt: string): string {
  const lines = [systemPrompt.trim() || DEFAULT_SYSTEM_PROMPT];
  if (personalPrompt.trim()) lines.push("", personalPrompt.trim());
  return lines.join("\n");
}

export interface RulesParts {
  channel: string;
  outputChannels: string[];
  now: Date;
  /** IANA zone of every time shown. */
  zone: string;
  /** The input starts a new topic. */
  newTopic?: boolean;
}

/** Said when an input starts a new topic; in both languages, like the timeline's header. */
export const NEW_TOPIC_RULE =
  "新话题 / New topic: the user starts a new subject with this message. The earlier turns of the timeline may be about something else: do not carry their subject over unless the user refers to it.";

/** The output-rules section: the time, where replies go, and a new topic when the input starts one. */
export function outputRulesText(p: RulesParts): string {
  const lines = [
    `Current time: ${currentTime(p.now.getTime(), p.zone)}.`,
    `Your final text reply goes back automatically through the input's channel "${p.channel}".`,
  ];
  const others = p.outputChannels.filter((c) => c !== p.channel);
  if (others.length > 0) {
    lines.push(
      `To reach another channel (${others.join(", ")}), call output_send__<channel>; call output_send__<channel>_help for its fields. Split long messages.`,
    );
  }
  if (p.newTopic) lines.push(NEW_TOPIC_RULE);
  return lines.join("\n");
}

/** `2025-01-31 08:05:09 +08:00 (Asia/Shanghai)`. */
export function currentTime(ms: number, zone: string): string {
  return `${formatInZone(ms, zone)} ${zoneOffset(ms, zone)} (${zone})`;
}

/** Start of the timeline message; the budget code finds the message by it. */
export const TIMELINE_HEADER = "【对话时序 / conversation timeline】";

/**
 * One timeline row per context event: `[YYYY-MM-DD HH:MM:SS] source: input → tools: a, b → you: reply`, in
 * `zone`. An input whose turn failed says so, so the model neither takes it as answered nor reads an error
 * as its own earlier words; a turn doc_query brought back from the archive says where it came from.
 */
export function timelineRow(e: ContextEvent, zone: string): string {
  const at = `[${formatInZone(e.ts, zone)}]`;
  if (e.kind === "agent") return `${at} you: ${e.response}`;
  const tools = e.toolsUsed.length ? ` → tools: ${e.toolsUsed.join(", ")}` : "";
  const reply = e.response ? `${tools} → you: ${e.response}` : "";
  const unanswered = e.unanswered ? ` (not answered: ${e.unanswered})` : "";
  const recalled = e.kind === "cold_storage" ? " (recalled from memory)" : "";
  return `${at} ${e.source}: ${e.input}${reply}${unanswered}${recalled}`;
}

/** The timeline message from rows (timelineRow) oldest-first; "" when there are none. */
export function renderTimeline(rows: string[], zone: string): string {
  if (rows.length === 0) return "";
  return `${timelineHeader(zone)}\n${rows.join("\n")}`;
}

export function timelineHeader(zone: string): string {
  return `${TIMELINE_HEADER} (${zone})`;
}
