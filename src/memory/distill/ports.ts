/**
 * What distillation needs from its neighbours, as small structural interfaces: the context window, the
 * document store, the graph, the search index and the kernel's two lanes. The real objects (RelevanceContext,
 * DocStore, GraphDB, SearchIndex, the agent) satisfy them as they are; tests pass small fakes or real SQLite.
 */
import type { PreparedQuery } from "../../retrieval/search.js";
import type { Triple } from "./triple.js";

/** A job-lane job (kernel/jobs.ts): steps of at most ~50 ms, serialized with turns. */
export interface Job {
  name: string;
  step(signal: AbortSignal): Promise<boolean>;
}
/** `agent.enqueueJob`: resolves when the job is done. */
export type RunJob = (job: Job) => Promise<void>;
/** `agent.injectSelf`: an LLM self-task restricted to `tools`; resolves when it is done. */
export type SelfTask = (text: string, opts: { tools: string[] }) => Promise<unknown>;

/** A query as text, or tokenized and embedded once (SearchIndex.prepare) for repeated use. */
export type PruneQuery = string | PreparedQuery;

/** ContextWindow (kernel/types.ts), the part the distill loop uses. */
export interface WindowPort {
  size(): number;
  window(): Promise<Array<{ kind: string; input: string }>>;
  prune(query: PruneQuery, keep: number): Promise<unknown[]>;
}

export interface ColdDoc {
  id: string;
  summary: string;
  tags: string[];
  source: string;
  tsStart: number;
  distilledAt: number | null;
}

export interface DocTurnLite {
  ts: number;
  source: string;
  input: string;
}

/** DocStore, the part the archive loop uses. */
export interface DocsPort {
  /** Not yet distilled, ≤ 2 accesses, untouched for 72 h; oldest first, at most `limit`. */
  findCold(now: number, ageMs?: number, maxAccess?: number, limit?: number): ColdDoc[];
  turns(docId: string): DocTurnLite[];
  /** null when the document is gone (consumed by doc_query, forgotten). */
  get(id: string): { distilledAt: number | null } | null;
  markDistilled(id: string, at: number): void;
}

export interface CommitOpts {
  sessionId?: string;
  sentence?: string;
  ts?: number;
}

/**
 * GraphDB.commit. Distillation commits are automatic (no `explicit`): the graph skips a fact the user
 * removed and counts it in `rejected`.
 */
export interface GraphCommit {
  commit(
    triples: readonly Triple[],
    opts?: CommitOpts,
  ): { entities: number; relations: number; skipped: string[]; rejected?: number };
}

export interface EntityLite {
  id: number;
  name: string;
  type: string;
  mentionCount: number;
}

/** GraphDB, the part the merge loop uses (pages by mention count). */
export interface MergeGraph {
  entities(opts: { offset: number; limit: number }): EntityLite[];
  entityById(id: number): EntityLite | null;
}

/** SearchIndex.nearest over the `ent:<id>` items, and (optional for fakes) prepare for the prune query. */
export interface NearestIndex {
  nearest(id: string, k: number, filter?: { kind?: string }): Array<{ id: string; similarity: number }>;
  prepare?(text: string): Promise<PreparedQuery>;
}

export interface ReviewRelation {
  id: number;
  subject: string;
  relation: string;
  object: string;
  sentence: string | null;
}

/** GraphDB, the part the review loop uses. */
export interface ReviewGraph {
  withSentences(limit: number): ReviewRelation[];
  /** Clears the citations and deletes sentences nothing cites any more; returns the sentences deleted. */
  clearSentences(relationIds: readonly number[]): number;
}

export interface DistillLog {
  info(msg: string): void;
  warn(msg: string): void;
}
