/**
 * What may enter the knowledge graph, and the graph's tables. Names are normalised and checked here so
 * that a model's sloppy triple ("我", "的", a 300-character sentence as a name) is skipped with a reason
 * instead of becoming a hub entity every search then drags along.
 */
import { HomeAgentError } from "../../util/errors.js";
import type { CleanTriple } from "./core.js";

export type GraphErrorCode = "graph_bad_argument" | "graph_not_found" | "graph_limit";

export class GraphError extends HomeAgentError {
  declare readonly code: GraphErrorCode;

  constructor(opts: { code: GraphErrorCode; message: string; cause?: unknown }) {
    super(opts);
  }
}

export const NAME_MIN_RUNES = 2;
export const NAME_MAX_RUNES = 50;
export const RELATION_MAX_RUNES = 50;
export const TYPE_MAX_RUNES = 30;
export const SENTENCE_MAX_CHARS = 4000;
export const MAX_TRIPLES_PER_COMMIT = 500;
export const MAX_DEPTH = 5;
export const MAX_KEYWORDS = 20;
export const DEFAULT_TYPE = "Concept";
const TRAIT_MAX_RUNES = 50;
const VALUE_MAX_CHARS = 500;

/**
 * Inventory §5.3 (entities, sentences, relations with their constraints and indexes; media blocks are
 * not part of this issue) plus person_traits for the social layer. Times are unix ms. session_id is '' rather
 * than NULL when there is no session: SQLite treats NULLs as distinct, which would defeat the UNIQUE rule.
 * Names compare case-insensitively (ASCII), so "alice" and "Alice" are one entity. A migration is only ever
 * appended: a memory.db made by an older HomeAgent runs the ones it has not seen.
 */
export const GRAPH_MIGRATIONS: readonly string[] = [
  `CREATE TABLE entities (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     name TEXT NOT NULL UNIQUE COLLATE NOCASE,
     type TEXT NOT NULL DEFAULT 'Concept',
     mention_count INTEGER NOT NULL DEFAULT 1,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );
   CREATE INDEX idx_entity_type ON entities(type);
   CREATE INDEX idx_entity_mentions ON entities(mention_count);
   CREATE TABLE sentences (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     text TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE relations (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     source_id INTEGER NOT NULL REFERENCES entities(id),
     target_id INTEGER NOT NULL REFERENCES entities(id),
     relation_type TEXT NOT NULL,
     confidence REAL NOT NULL DEFAULT 1.0,
     status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted', 'archived')),
     session_id TEXT NOT NULL DEFAULT '',
     turn_id INTEGER NOT NULL DEFAULT 0,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     date_bucket TEXT NOT NULL,
     sentence_id INTEGER NOT NULL DEFAULT 0,
     UNIQUE (source_id, target_id, relation_type, session_id)
   );
   CREATE INDEX idx_relation_source ON relations(source_id, status);
   CREATE INDEX idx_relation_target ON relations(target_id, status);
   CREATE INDEX idx_relation_type ON relations(relation_type);
   CREATE INDEX idx_relation_status ON relations(status, created_at);
   CREATE INDEX idx_relation_session ON relations(session_id);
   CREATE INDEX idx_relation_sentence ON relations(sentence_id);
   CREATE TABLE person_traits (
     entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
     trait TEXT NOT NULL COLLATE NOCASE,
     value TEXT NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (entity_id, trait)
   );`,
  // Facts the user took out by hand, so automatic distillation does not put them back (fact-rejections.ts).
  // fact_key is the three names normalised and lower-cased, as sameFact compares them.
  `CREATE TABLE fact_rejections (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     fact_key TEXT NOT NULL UNIQUE,
     subject TEXT NOT NULL,
     relation TEXT NOT NULL,
     object TEXT NOT NULL,
     rejected_at INTEGER NOT NULL,
     skips INTEGER NOT NULL DEFAULT 0
   );`,
  // The same, without the text: keyed hashes of the triple and of its names and words (fact-rejections.ts).
  // Rows of the text table are converted by FactRejections when it opens, then the table is dropped.
  `ALTER TABLE fact_rejections RENAME TO fact_rejections_text;
   CREATE TABLE fact_rejections (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     fact_key TEXT NOT NULL UNIQUE,
     name_keys TEXT NOT NULL,
     rejected_at INTEGER NOT NULL,
     skips INTEGER NOT NULL DEFAULT 0
   );`,
];

export function runes(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** NFKC (full-width → half-width), control characters out, whitespace collapsed, trimmed. */
export function normalizeName(value: unknown): string {
  if (typeof value !== "string") return "";
  return value
    .normalize("NFKC")
    .replace(/\p{Cc}/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const NAME_CONTENT = /[\p{L}_-]/u;

/** Why `name` (normalised) cannot be an entity name, or null when it can. */
export function nameProblem(name: string): string | null {
  const n = runes(name);
  if (n < NAME_MIN_RUNES || n > NAME_MAX_RUNES) {
    return `"${clip(name)}" must be ${NAME_MIN_RUNES}–${NAME_MAX_RUNES} characters (it has ${n})`;
  }
  if (!NAME_CONTENT.test(name)) return `"${name}" must contain a letter, a CJK character, "-" or "_"`;
  return null;
}

export function relationProblem(relation: string): string | null {
  const n = runes(relation);
  if (n === 0) return "the relation is empty";
  if (n > RELATION_MAX_RUNES) return `relation "${clip(relation)}" is longer than ${RELATION_MAX_RUNES} characters`;
  return null;
}

export function typeProblem(type: string): string | null {
  const n = runes(type);
  if (n === 0 || n > TYPE_MAX_RUNES) return `type "${clip(type)}" must be 1–${TYPE_MAX_RUNES} characters`;
  return null;
}

/** A LIKE pattern matching `text` anywhere; % and _ in it are literal (ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * A function giving the YYYY-MM-DD of a time in `timeZone` (default: the process's). Built once: an Intl
 * formatter costs far more to create than to use. An unknown zone is refused here.
 */
export function dayFormatter(timeZone?: string): (ts: number) => string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
  } catch (err) {
    throw new GraphError({
      code: "graph_bad_argument",
      message: `unknown time zone "${timeZone}": use an IANA name such as "Asia/Shanghai"`,
      cause: err,
    });
  }
  return (ts) => format.format(ts);
}

/** A control character that is not white space (NUL, ESC, DEL, C1…): no name holds one on purpose. */
const CONTROL = /[^\P{Cc}\s]/u;

/**
 * Why a field of a triple holds a control character, or null. Turning it into a space (as white space is)
 * would store something other than what was sent without saying so; tabs and line breaks are white space
 * and collapse to one space as before.
 */
function controlProblem(field: string, value: unknown): string | null {
  if (typeof value !== "string") return null;
  const found = CONTROL.exec(value)?.[0];
  if (found === undefined) return null;
  const code = `U+${found.codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0")}`;
  return `${field} contains the control character ${code}: remove it (names are plain text)`;
}

/** A triple ready to write, or why it cannot be written. */
export function checkTriple(t: unknown): CleanTriple | string {
  if (typeof t !== "object" || t === null) return "not an object {subject, relation, object}";
  const raw = t as Record<string, unknown>;
  for (const field of ["subject", "relation", "object", "subjectType", "objectType"]) {
    const problem = controlProblem(field, raw[field]);
    if (problem) return problem;
  }
  const subject = normalizeName(raw.subject);
  const relation = normalizeName(raw.relation);
  const object = normalizeName(raw.object);
  if (!subject || !relation || !object) return "subject, relation and object must all be non-empty";
  const problem =
    nameProblem(subject) ??
    nameProblem(object) ??
    relationProblem(relation) ??
    (subject.toLowerCase() === object.toLowerCase() ? `subject and object are the same ("${subject}")` : null);
  if (problem) return problem;
  const subjectType = optionalType(raw.subjectType);
  const objectType = optionalType(raw.objectType);
  if (subjectType instanceof Error) return subjectType.message;
  if (objectType instanceof Error) return objectType.message;
  const confidence = raw.confidence === undefined ? 1 : raw.confidence;
  if (typeof confidence !== "number" || !(confidence > 0 && confidence <= 1)) {
    return `confidence must be a number in (0, 1], got ${String(raw.confidence)}`;
  }
  return { subject, relation, object, subjectType, objectType, confidence };
}

function optionalType(value: unknown): string | null | Error {
  if (value === undefined || value === null || value === "") return null;
  const type = normalizeName(value);
  const problem = typeProblem(type);
  if (problem) return new GraphError({ code: "graph_bad_argument", message: problem });
  return type === DEFAULT_TYPE ? null : type;
}

export function checkSentence(sentence: unknown): string | null {
  if (sentence === undefined || sentence === null) return null;
  if (typeof sentence !== "string") {
    throw new GraphError({ code: "graph_bad_argument", message: "sentence must be a string" });
  }
  const text = sentence.trim();
  if (text.length > SENTENCE_MAX_CHARS) {
    throw new GraphError({
      code: "graph_limit",
      message: `sentence is ${text.length} characters, more than ${SENTENCE_MAX_CHARS}: give the sentence the facts come from, not the document`,
    });
  }
  return text || null;
}

/** A person's trait as setTrait stores it: the names normalized, each part within its limit. */
export function checkTrait(name: string, trait: string, value: string): { person: string; key: string; text: string } {
  const person = normalizeName(name);
  const problem = nameProblem(person);
  if (problem) throw new GraphError({ code: "graph_bad_argument", message: `person name ${problem}` });
  const key = normalizeName(trait);
  if (!key || runes(key) > TRAIT_MAX_RUNES) {
    throw new GraphError({ code: "graph_bad_argument", message: `trait must be 1–${TRAIT_MAX_RUNES} characters` });
  }
  const text = typeof value === "string" ? value.trim() : "";
  if (!text || text.length > VALUE_MAX_CHARS) {
    throw new GraphError({ code: "graph_bad_argument", message: `value must be 1–${VALUE_MAX_CHARS} characters` });
  }
  return { person, key, text };
}

export function sameFact(a: { subject: string; relation: string; object: string }, b: CleanTriple): boolean {
  const eq = (x: string, y: string) => x.toLowerCase() === y.toLowerCase();
  return eq(a.subject, b.subject) && eq(a.relation, b.relation) && eq(a.object, b.object);
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
