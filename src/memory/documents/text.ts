/**
 * The derived parts of a document: the original's generated summary ("来自 N 个来源的 M 条对话 … 涉及: …"),
 * tags, entities, the content hash used for de-duplication, and the ≤ ~1,000-character pieces a long
 * manual document is indexed as. Topics come from the shared tokenizer, so they are the words search sees.
 */
import { createHash } from "node:crypto";
import { STOP_WORDS } from "../../embedding/stopwords.js";
import { tokenize } from "../../embedding/text.js";

export const MAX_TOPICS = 5;
export const MAX_TAGS = 10;
export const MAX_ENTITIES = 20;
export const CHUNK_CHARS = 1000;

/** The most frequent meaningful tokens of `text` (ties: first seen first). */
export function topTerms(text: string, limit: number): string[] {
  const counts = new Map<string, number>();
  for (const t of tokenize(text)) {
    if ([...t].length < 2 || /^\d+$/.test(t)) continue;
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([t]) => t);
}

/**
 * Name-like words: capitalised Latin words (a single one only if it is not a stop word and never appears
 * in lower case, so "She" or a capitalised sentence start is skipped) and CJK words of two characters or
 * more, most frequent first. A cheap stand-in for NER that the graph layer refines when it distills.
 */
export function entitiesOf(text: string, limit = MAX_ENTITIES): string[] {
  const counts = new Map<string, number>();
  const add = (w: string) => counts.set(w, (counts.get(w) ?? 0) + 1);
  const lower = new Set(text.match(/\b\p{Ll}[\p{L}]*/gu) ?? []);
  for (const m of text.matchAll(/\b\p{Lu}[\p{L}]+(?:\s+\p{Lu}[\p{L}]+)*/gu)) {
    const w = m[0].toLowerCase();
    if (m[0].includes(" ") || (!STOP_WORDS.has(w) && !lower.has(w))) add(m[0]);
  }
  for (const t of tokenize(text)) if (/^\p{Script=Han}{2,}$/u.test(t)) add(t);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([w]) => w);
}

export function contentHash(content: string): string {
  return createHash("sha256").update(content).digest("hex");
}

/** The original's summary of archived context, with the date range so a reader can place it. */
export function archiveSummary(turns: ReadonlyArray<{ ts: number; source: string }>, text: string): string {
  const sources = [...new Set(turns.map((t) => t.source))];
  const days = [
    ...new Set([turns[0].ts, turns[turns.length - 1].ts].map((ts) => new Date(ts).toISOString().slice(0, 10))),
  ];
  const topics = topTerms(text, MAX_TOPICS);
  return `来自 ${sources.length} 个来源的 ${turns.length} 条对话 (${sources.join(", ")}; ${days.join(" – ")}) 涉及: ${topics.join(", ")}`;
}

/** A manual document's summary when none is given: its first line, cut to 120 characters. */
export function leadSummary(content: string): string {
  const first = content.trim().split("\n", 1)[0].trim();
  return [...first].length > 120 ? `${[...first].slice(0, 119).join("")}…` : first;
}

/**
 * Pieces of at most `max` characters, cut at paragraph or sentence ends where possible, so each piece is
 * a readable excerpt. Concatenated they give back the content.
 */
export function chunks(content: string, max = CHUNK_CHARS): string[] {
  if (content.length <= max) return [content];
  const out: string[] = [];
  let current = "";
  for (const piece of content.split(/(?<=\n\n|[。！？.!?]\s?)/u)) {
    if (current.length + piece.length <= max) {
      current += piece;
      continue;
    }
    if (current) out.push(current);
    current = piece;
    while (current.length > max) {
      // Never split a surrogate pair (an emoji, a rare CJK character) across two pieces.
      const cut = /[\ud800-\udbff]/.test(current[max - 1]) ? max - 1 : max;
      out.push(current.slice(0, cut));
      current = current.slice(cut);
    }
  }
  if (current) out.push(current);
  return out;
}
