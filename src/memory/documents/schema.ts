/**
 * The document layer's tables, types, limits and input checks, apart from DocStore's logic so each file
 * holds one concept. Table and column names are the ones the issue-8 contract fixes.
 */
import { HomeAgentError } from "../../util/errors.js";
import { MAX_TAGS } from "./text.js";

export const DOC_SOURCES = ["context_archived", "manual", "graph", "context"] as const;
export type DocSource = (typeof DOC_SOURCES)[number];

export interface DocTurn {
  id: number;
  docId: string;
  ts: number;
  source: string;
  channel: string;
  input: string;
  response: string;
}

export interface Doc {
  id: string;
  summary: string;
  /** Verbatim: the archived turns with their dates, or the committed text. */
  content: string;
  tags: string[];
  entities: string[];
  source: DocSource;
  meta: Record<string, unknown>;
  contentHash: string;
  createdAt: number;
  updatedAt: number;
  accessCount: number;
  lastAccess: number | null;
  /** Time span of what the document records (original timestamps), not when it was stored. */
  tsStart: number;
  tsEnd: number;
  distilledAt: number | null;
}

export interface DocWithTurns extends Doc {
  turns: DocTurn[];
}

export interface DocHit {
  doc: Doc;
  /** Best search score among the document's items. */
  score: number;
  /** Archived turns of the document that matched, best first. */
  turnIds: number[];
}

export interface CommitInput {
  content: string;
  summary?: string;
  tags?: string[];
  source?: DocSource;
  /** When what the text records happened (default now). */
  ts?: number;
}

export const DOC_LIMITS = {
  contentChars: 200_000,
  summaryChars: 2_000,
  tagChars: 64,
  topK: 50,
  listLimit: 500,
  neighbours: 50,
  /** Turns whose neighbours one look-up fetches (a related-memory pass asks for its hits at once). */
  turnsPerLookUp: 256,
} as const;

export class DocStoreError extends HomeAgentError {}

export const DOC_MIGRATIONS = [
  `CREATE TABLE documents (
     id TEXT PRIMARY KEY,
     summary TEXT NOT NULL,
     content TEXT NOT NULL,
     tags TEXT NOT NULL DEFAULT '[]',
     entities TEXT NOT NULL DEFAULT '[]',
     source TEXT NOT NULL,
     meta TEXT NOT NULL DEFAULT '{}',
     content_hash TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     access_count INTEGER NOT NULL DEFAULT 0,
     last_access INTEGER,
     ts_start INTEGER NOT NULL,
     ts_end INTEGER NOT NULL,
     distilled_at INTEGER,
     chunks INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX documents_ts_end ON documents(ts_end, id);
   CREATE INDEX documents_cold ON documents(distilled_at, access_count);
   CREATE TABLE doc_turns (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
     ts INTEGER NOT NULL,
     source TEXT NOT NULL,
     channel TEXT NOT NULL,
     input TEXT NOT NULL,
     response TEXT NOT NULL
   );
   CREATE INDEX doc_turns_ts ON doc_turns(ts, id);
   CREATE INDEX doc_turns_doc ON doc_turns(doc_id);`,
];

export interface DocRow {
  id: string;
  summary: string;
  content: string;
  tags: string;
  entities: string;
  source: DocSource;
  meta: string;
  content_hash: string;
  created_at: number;
  updated_at: number;
  access_count: number;
  last_access: number | null;
  ts_start: number;
  ts_end: number;
  distilled_at: number | null;
  chunks: number;
}

export const TURN_COLUMNS = "id, doc_id AS docId, ts, source, channel, input, response";

export function toDoc(r: DocRow): Doc {
  return {
    id: r.id,
    summary: r.summary,
    content: r.content,
    tags: JSON.parse(r.tags) as string[],
    entities: JSON.parse(r.entities) as string[],
    source: r.source,
    meta: JSON.parse(r.meta) as Record<string, unknown>,
    contentHash: r.content_hash,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    accessCount: r.access_count,
    lastAccess: r.last_access,
    tsStart: r.ts_start,
    tsEnd: r.ts_end,
    distilledAt: r.distilled_at,
  };
}

export function checkCommit(input: CommitInput, content: string, source: string, ts: number): void {
  const bad = (message: string) => new DocStoreError({ code: "doc_invalid", message });
  if (!content.trim()) throw bad("a document needs some content: pass the text to store");
  if (content.length > DOC_LIMITS.contentChars) {
    throw new DocStoreError({
      code: "doc_too_large",
      message: `a document holds at most ${DOC_LIMITS.contentChars} characters (got ${content.length}): split it into several documents`,
    });
  }
  if ((input.summary?.length ?? 0) > DOC_LIMITS.summaryChars) {
    throw bad(`a summary holds at most ${DOC_LIMITS.summaryChars} characters: shorten it`);
  }
  const tags = input.tags ?? [];
  if (tags.length > MAX_TAGS) throw bad(`a document takes at most ${MAX_TAGS} tags (got ${tags.length})`);
  for (const t of tags) {
    if (!t.trim() || t.length > DOC_LIMITS.tagChars) {
      throw bad(`each tag must be 1–${DOC_LIMITS.tagChars} characters, got "${t.slice(0, 80)}"`);
    }
  }
  if (!(DOC_SOURCES as readonly string[]).includes(source)) {
    throw bad(`unknown document source "${source}": use one of ${DOC_SOURCES.join(", ")}`);
  }
  if (!Number.isSafeInteger(ts) || ts < 0) throw bad(`a document's ts must be unix milliseconds, got ${ts}`);
}

export function checkTopK(topK: number): void {
  checkRange("topK", topK, 1, DOC_LIMITS.topK);
}

export function checkRange(name: string, v: number, min: number, max: number): void {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new DocStoreError({
      code: "doc_invalid",
      message: `${name} must be an integer from ${min} to ${max}, got ${v}`,
    });
  }
}
