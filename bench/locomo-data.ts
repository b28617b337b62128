/**
 * Reads a file in LoCoMo's format (Maharana et al. 2024): a list of samples, each with
 * `conversation.session_N` (turns `{speaker, dia_id, text, blip_caption?}`), `session_N_date_time`, and
 * `qa` (`{question, category, evidence: ["D1:3", …]}`). Real files have flaws — "D8:6; D9:17" in one
 * string, a bare "D", ids of turns that do not exist, sessions with a date but no turns — so evidence is
 * split, checked against the turns, and whatever cannot count is reported instead of silently scored.
 */
import { readFileSync } from "node:fs";

export interface Turn {
  conversation: string;
  diaId: string;
  speaker: string;
  /** The turn's words, plus the caption of a shared photo: it is what the listener saw. */
  text: string;
  date: string;
}

export interface Question {
  conversation: string;
  question: string;
  category: number;
  /** Evidence ids that name a turn of this conversation. */
  evidence: string[];
}

export interface LocomoData {
  turns: Turn[];
  questions: Question[];
  /** Evidence entries that were malformed or named no turn, one message each. */
  dropped: string[];
}

const DIA_ID = /^D\d+:\d+$/;
const SESSION = /^session_(\d+)$/;

export function loadLocomo(path: string): LocomoData {
  return parseLocomo(JSON.parse(readFileSync(path, "utf8")));
}

export function parseLocomo(raw: unknown): LocomoData {
  if (!Array.isArray(raw)) throw new Error("not a LoCoMo file: expected a JSON array of samples");
  const out: LocomoData = { turns: [], questions: [], dropped: [] };
  raw.forEach((sample, n) => {
    const id = typeof sample?.sample_id === "string" ? sample.sample_id : `sample-${n}`;
    const conv = sample?.conversation;
    if (!conv || typeof conv !== "object") throw new Error(`${id}: no "conversation" object`);
    const known = new Set<string>();
    for (const [key, value] of Object.entries(conv as Record<string, unknown>)) {
      const m = SESSION.exec(key);
      if (!m || !Array.isArray(value)) continue;
      const date = String((conv as Record<string, unknown>)[`session_${m[1]}_date_time`] ?? "");
      for (const t of value) {
        if (typeof t?.dia_id !== "string" || typeof t?.text !== "string") continue;
        const caption = typeof t.blip_caption === "string" ? ` [shares a photo: ${t.blip_caption}]` : "";
        out.turns.push({
          conversation: id,
          diaId: t.dia_id,
          speaker: String(t.speaker ?? ""),
          text: t.text + caption,
          date,
        });
        known.add(t.dia_id);
      }
    }
    for (const qa of Array.isArray(sample.qa) ? sample.qa : []) {
      const evidence: string[] = [];
      for (const entry of Array.isArray(qa?.evidence) ? qa.evidence : []) {
        for (const part of String(entry).split(/[;,\s]+/)) {
          if (!part) continue;
          if (DIA_ID.test(part) && known.has(part)) {
            if (!evidence.includes(part)) evidence.push(part);
          } else {
            out.dropped.push(`${id}: evidence "${part}" of "${qa.question}" names no turn`);
          }
        }
      }
      out.questions.push({
        conversation: id,
        question: String(qa?.question ?? ""),
        category: Number(qa?.category),
        evidence,
      });
    }
  });
  return out;
}
