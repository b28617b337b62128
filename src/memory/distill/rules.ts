/**
 * Rule extraction of personal facts from what the user said, in Chinese and English ("我叫X", "I live in X"
 * …), as the architecture document's pipeline does. Rules are anchored at the start of a clause, so "你知道我
 * 住在哪吗" or "my friend says I live in Paris" are not taken for facts; questions are skipped.
 *
 * Subject: the speaker's name when the line opens with `Name: text` (a group chat, a transcript), otherwise
 * "用户" (triple.ts says why one word for both languages).
 */
import { NAME_MAX_RUNES, NAME_MIN_RUNES, normalizeName, runes } from "../graph/rules.js";
import { GENERIC_SPEAKERS, NOT_SPEAKERS } from "./lexicon.js";
import { greetingName, matchEnglish } from "./rules-en.js";
import { matchChinese } from "./rules-zh.js";
import { DEFAULT_SUBJECT, OBJECT_TYPES, type RuleHit, type Triple } from "./triple.js";

/** Only the start of a very long line is read: facts about oneself come in short sentences. */
export const MAX_LINE_CHARS = 4000;
const MAX_TRIPLES_PER_LINE = 20;

export interface ExtractOptions {
  /** Overrides the subject (otherwise the line's speaker, else DEFAULT_SUBJECT). */
  subject?: string;
}

/** The triples the rules find in one line the user said. */
export function extractTriples(line: string, opts: ExtractOptions = {}): Triple[] {
  const { speaker, text } = splitSpeaker(line.slice(0, MAX_LINE_CHARS));
  const subject = opts.subject ?? speaker ?? DEFAULT_SUBJECT;
  const out: Triple[] = [];
  const seen = new Set<string>();
  const greeting = greetingName(text);
  const found = clauses(text).flatMap((c) => (c.question ? [] : matchClause(c.text)));
  for (const hit of greeting ? [greeting, ...found] : found) {
    const object = normalizeName(hit.object);
    if (!acceptableObject(object)) continue;
    const key = `${hit.relation}\u0000${object.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const objectType = OBJECT_TYPES[hit.relation];
    out.push({ subject, subjectType: "Person", relation: hit.relation, object, ...(objectType ? { objectType } : {}) });
    if (out.length >= MAX_TRIPLES_PER_LINE) break;
  }
  return out;
}

function matchClause(clause: string): RuleHit[] {
  return /[\u3400-\u9fff]/.test(clause.slice(0, 4)) ? matchChinese(clause) : matchEnglish(clause);
}

function acceptableObject(object: string): boolean {
  const n = runes(object);
  return n >= NAME_MIN_RUNES && n <= NAME_MAX_RUNES && /[\p{L}]/u.test(object);
}

// "[1:56 pm on 8 May, 2023] Caroline: …" (a dated transcript line) → the date is dropped, the name kept.
const DATE_PREFIX = /^\s*\[[^\]\n]{1,80}\]\s*/;
const SPEAKER_PREFIX = /^([A-Z][\p{L}'.-]*(?: [A-Z][\p{L}'.-]*){0,2}|[\u4e00-\u9fff]{2,4})\s?[:：]\s*(?=\S)/u;

/** The speaker of a `Name: text` line (null when there is none or it means the user) and the text. */
export function splitSpeaker(line: string): { speaker: string | null; text: string } {
  const text = line.normalize("NFKC").replace(/[’‘]/g, "'").replace(DATE_PREFIX, "");
  const m = SPEAKER_PREFIX.exec(text);
  if (!m) return { speaker: null, text };
  // "Note: …" is a label, not a person: the text after it still counts, said by the user.
  const rest = text.slice(m[0].length);
  if (NOT_SPEAKERS.has(m[1].toLowerCase())) return { speaker: null, text: rest };
  return { speaker: GENERIC_SPEAKERS.has(m[1].toLowerCase()) ? null : m[1], text: rest };
}

interface Clause {
  text: string;
  question: boolean;
}

// Sentence ends: CJK and Latin terminators; a "." only before a space or the end ("3.5", "e.g" stay).
const SENTENCE_END = /(?<=[。！？!?；;\n])|(?<=\.)(?=\s|$)/;
// Clause breaks inside a sentence: commas, and a conjunction that starts a new "I …" / "我…" clause.
const CLAUSE_BREAK =
  /[,，、]|\s+(?:and|but|so|because|though|although|while|plus)\s+(?=(?:i|i'm|i've|my)\b)|(?:而且|并且|但是|不过|所以|因为|然后|同时|另外)(?=我)/i;
const ZH_QUESTION = /(?:吗|么|什么|哪里|哪儿|哪个|哪|谁|几岁|多少|怎么|为什么|是不是|有没有)/;
const ZH_QUESTION_END = /[呢吗吧][。.!！\s]*$/;

/** The clauses of `text`; the last clause of a question (and any with a Chinese question word) is a question. */
export function clauses(text: string): Clause[] {
  const out: Clause[] = [];
  for (const sentence of text.split(SENTENCE_END)) {
    const isQuestion = /[?？]\s*$/.test(sentence) || ZH_QUESTION_END.test(sentence);
    const parts = sentence
      .split(CLAUSE_BREAK)
      .map((p) => p.replace(/[。！？!?；;.\s]+$/, "").trim())
      .filter((p) => p !== "");
    parts.forEach((p, i) => {
      const zhQuestion = /[\u3400-\u9fff]/.test(p) && ZH_QUESTION.test(p);
      out.push({ text: p, question: zhQuestion || (isQuestion && i === parts.length - 1) });
    });
  }
  return out;
}
