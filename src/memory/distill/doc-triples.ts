/**
 * docToTriples: what a cold document contributes to the graph. The rules run over the user lines of its
 * archived turns (each commit cites its sentence, so the review loop can check it), and the document adds
 * 主题 (its tags) and 来源 (where its turns came from) facts. The original hung those on one "文档" entity,
 * which turns into a hub that every depth-2 recall drags all topics through; here the subject is the
 * document's day ("文档 2024-05-01"), so a topic leads to what else was discussed that day. A noise filter
 * keeps stop words, numbers and self-loops out.
 */
import { STOP_WORDS } from "../../embedding/stopwords.js";
import { NAME_MAX_RUNES, NAME_MIN_RUNES, normalizeName, runes } from "../graph/rules.js";
import { DISTILL_SESSION } from "./pipeline.js";
import type { ColdDoc, DocTurnLite } from "./ports.js";
import { extractTriples } from "./rules.js";
import type { Triple } from "./triple.js";

export const DOC_SUBJECT = "文档";
export const ARCHIVE_SESSION = "archive";
const MAX_TOPICS = 5;
const TOPIC_MAX_RUNES = 30;
/** Tags the stores add for their own bookkeeping, not topics of the conversation. */
const BOOKKEEPING_TAGS = new Set(["context_archived", "manual", "graph", "context", "graph_memory", "auto_sync"]);
/** Turns the agent gave itself (consolidation tasks), not things a person said. */
const NOT_A_SPEAKER = new Set(["kernel", "system", "_consolidation_"]);

/** One graph commit: triples, the sentence they came from (if any) and when it was said. */
export interface DocCommit {
  triples: Triple[];
  sentence?: string;
  ts: number;
  sessionId: string;
}

/** The commits that carry a cold document's facts into the graph; `day(ts)` names its date (YYYY-MM-DD). */
export function docToTriples(doc: ColdDoc, turns: readonly DocTurnLite[], day: (ts: number) => string): DocCommit[] {
  const out = turns.flatMap((turn) => turnCommit(turn) ?? []);
  const about = docCommit(doc, turns, day);
  return about ? [...out, about] : out;
}

/** The rule facts of one archived turn, citing it; null when it states none (or is not a person's). */
export function turnCommit(turn: DocTurnLite): DocCommit | null {
  if (NOT_A_SPEAKER.has(turn.source) || turn.input.trim() === "") return null;
  const triples = extractTriples(turn.input).filter((t) => !isNoise(t));
  return triples.length > 0 ? { triples, sentence: turn.input, ts: turn.ts, sessionId: DISTILL_SESSION } : null;
}

/** What the document as a whole adds: its topics and where its turns came from, on the day's subject. */
export function docCommit(doc: ColdDoc, turns: readonly DocTurnLite[], day: (ts: number) => string): DocCommit | null {
  const subject = `${DOC_SUBJECT} ${day(doc.tsStart)}`;
  const about: Triple[] = topics(doc.tags).map((tag) => ({
    subject,
    subjectType: "Document",
    relation: "主题",
    object: tag,
    objectType: "Topic",
  }));
  const sources = new Set(turns.map((t) => t.source).filter((s) => s !== "" && !NOT_A_SPEAKER.has(s)));
  if (sources.size === 0) sources.add(doc.source);
  for (const source of sources) {
    about.push({ subject, subjectType: "Document", relation: "来源", object: source, objectType: "Source" });
  }
  const kept = about.filter((t) => !isNoise(t));
  return kept.length > 0 ? { triples: kept, ts: doc.tsStart, sessionId: ARCHIVE_SESSION } : null;
}

function topics(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const tag = normalizeName(raw);
    if (BOOKKEEPING_TAGS.has(tag.toLowerCase()) || runes(tag) > TOPIC_MAX_RUNES) continue;
    if (!out.some((t) => t.toLowerCase() === tag.toLowerCase())) out.push(tag);
    if (out.length === MAX_TOPICS) break;
  }
  return out;
}

/** A triple no one would want to recall: a stop word, a number, a self-loop, a name the graph refuses. */
export function isNoise(t: Triple): boolean {
  const subject = normalizeName(t.subject);
  const object = normalizeName(t.object);
  if (subject.toLowerCase() === object.toLowerCase() || normalizeName(t.relation) === "") return true;
  return [subject, object].some((name) => {
    const n = runes(name);
    return n < NAME_MIN_RUNES || n > NAME_MAX_RUNES || !/\p{L}/u.test(name) || STOP_WORDS.has(name.toLowerCase());
  });
}
