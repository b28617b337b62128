/**
 * SearchIndex: the one retrieval API every memory layer and the knowledge base use. Items live in one
 * SQLite database with a BM25 keyword index and vectors of the current embedding provider; `search`
 * fuses both. Items are searchable by keyword the moment `add` has written them; their vectors follow
 * (vector-upkeep.ts keeps them in step with the items and the provider).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { EmbeddingProvider } from "../embedding/spi.js";
import { tokenize } from "../embedding/text.js";
import { HomeAgentError } from "../util/errors.js";
import { useUserDataSettings } from "../util/sqlite-settings.js";
import { RetrievalError } from "./errors.js";
import { normalFilter, type SearchFilter } from "./filter.js";
import { type Candidate, DEFAULT_WEIGHTS, fuse, validWeights, type Weights } from "./fusion.js";
import { type ChangedRow, type ItemInput, KeywordIndex, MAX_LIST, type StoredItem } from "./keyword-index.js";
import { filteredKnn } from "./knn.js";
import { isLexical, pivoted } from "./lexical-query.js";
import { asPrepared, type PreparedQuery, PreparedText, type QueryInput } from "./query.js";
import type { ReembedJob } from "./reembed.js";
import type { IndexWriter, ListOptions, SearchHit, SearchIndexOptions, SearchOptions, SearchStatus } from "./types.js";
import { type Neighbour, VectorIndex } from "./vector-index.js";
import { VectorUpkeep } from "./vector-upkeep.js";

export type { SearchFilter } from "./filter.js";
export type { Weights } from "./fusion.js";
export type { ItemInput, StoredItem } from "./keyword-index.js";
export type { PreparedQuery, QueryInput } from "./query.js";
export type { IndexWriter, ListOptions, SearchHit, SearchIndexOptions, SearchOptions, SearchStatus } from "./types.js";

/** Candidates fetched from each component before fusion: a few times k, so fusion can reorder. */
const POOL_FACTOR = 4;
const MIN_POOL = 40;

export class SearchIndex {
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly keywords: KeywordIndex;
  private readonly vectors: VectorIndex;
  private readonly weights: Weights;
  private readonly upkeep: VectorUpkeep;

  constructor(db: Database.Database | string, opts: SearchIndexOptions = {}) {
    if (typeof db === "string") {
      if (db !== ":memory:") mkdirSync(dirname(db), { recursive: true });
      this.db = new Database(db);
      useUserDataSettings(this.db);
      this.ownsDb = true;
    } else {
      this.db = db;
      this.ownsDb = false;
    }
    this.keywords = new KeywordIndex(this.db);
    this.vectors = new VectorIndex(this.db);
    this.weights = validWeights({ ...DEFAULT_WEIGHTS, ...opts.weights });
    this.upkeep = new VectorUpkeep({ db: this.db, keywords: this.keywords, vectors: this.vectors }, opts);
    this.setEmbedder(opts.embedder ?? null);
  }

  /**
   * Switches the embedding provider. Vectors of another fingerprint or dimension are never compared with
   * its queries; if items lack vectors in its space, re-embedding starts (unless autoReembed is false).
   */
  setEmbedder(embedder: EmbeddingProvider | null): void {
    this.upkeep.setEmbedder(embedder);
  }

  /** Starts (or resumes) filling in the vectors missing from the current space; null if none are. */
  reembed(): ReembedJob | null {
    return this.upkeep.reembed();
  }

  /** Inserts or replaces items. Resolves once they are durable and their vectors written (if possible). */
  async add(items: readonly ItemInput[]): Promise<void> {
    this.write((w) => w.upsert(items));
    await this.upkeep.queue.flush();
  }

  /** Removes items by id; returns how many existed. */
  remove(ids: readonly string[]): number {
    return this.write((w) => w.remove(ids));
  }

  /**
   * Runs `fn` in one database transaction; the items it upserts or removes are written in that same
   * transaction as the caller's own SQL inside `fn`, and are searchable by keyword when it returns. If
   * `fn` throws, everything is rolled back (the in-memory keyword index too). Vectors of the written items
   * are computed after the commit; flush() waits for them. Must not be called inside another transaction:
   * an outer rollback could not be seen here.
   */
  write<T>(fn: (w: IndexWriter) => T): T {
    if (this.db.inTransaction) {
      throw new HomeAgentError({
        code: "internal_error",
        message: "SearchIndex.write must not run inside another transaction: run your SQL inside its callback",
      });
    }
    const changed: ChangedRow[] = [];
    const removed: number[] = [];
    let open = true;
    const closed = () => {
      if (!open) {
        throw new HomeAgentError({
          code: "internal_error",
          message: "the IndexWriter of SearchIndex.write is only usable inside its callback",
        });
      }
    };
    const writer: IndexWriter = {
      upsert: (items) => {
        closed();
        const { changed: rows, renamed } = this.keywords.upsert(items);
        // A vector of the old text must not outlive it, even if embedding the new text fails later.
        this.vectors.delete(rows.filter((r) => r.replaced).map((r) => r.rowid));
        changed.push(...rows);
        // A renamed item's vectors (in every space) move to its new kind; one still waiting for its vector
        // in the current space gets it there.
        const space = this.upkeep.space;
        for (const r of renamed) {
          this.vectors.rekind(r.rowid, r.kind);
          if (!space || !this.vectors.has(space, r.rowid)) changed.push(r);
        }
      },
      remove: (ids) => {
        closed();
        const gone = this.keywords.remove(ids);
        this.vectors.delete(gone);
        removed.push(...gone);
        return gone.length;
      },
    };
    let result: T;
    try {
      result = this.inTransaction(() => {
        const out = fn(writer);
        if (changed.length > 0) this.upkeep.markPending(Math.min(...changed.map((r) => r.rowid)));
        return out;
      });
    } finally {
      open = false;
    }
    this.upkeep.written(changed, removed);
    return result;
  }

  /** Resolves when the vectors of every item written so far have been computed (or have failed). */
  flush(): Promise<void> {
    return this.upkeep.queue.flush();
  }

  /** Tokenizes and embeds a query once, for any number of searches and scorings. */
  async prepare(text: string): Promise<PreparedQuery> {
    const q = new PreparedText(text);
    await this.upkeep.queryVector(q);
    return q;
  }

  async search(query: QueryInput, opts: SearchOptions = {}): Promise<SearchHit[]> {
    const k = opts.k ?? 10;
    if (!Number.isInteger(k) || k <= 0) throw positiveK("search", k);
    const weights = validWeights({ ...this.weights, ...opts.weights });
    const filter = normalFilter(opts.filter);
    const pool = Math.max(k * POOL_FACTOR, MIN_POOL);
    const q = asPrepared(query);

    const candidates = new Map<number, Candidate>();
    if (weights.bm25 > 0 && q.tokens.length > 0) {
      for (const r of this.keywords.top(q.tokens, pool, filter)) {
        candidates.set(r.rowid, { rowid: r.rowid, bm25: r.s, vector: null });
      }
    }

    const space = weights.vector > 0 ? this.upkeep.space : null;
    const queryVector = space ? await this.upkeep.queryVector(q) : null;
    // The provider may have been switched while the query was embedded: then its vector is of no use.
    if (space && queryVector && this.upkeep.space?.id === space.id) {
      for (const n of filteredKnn(this.keywords, this.vectors, space, queryVector, pool, filter)) {
        const c = candidates.get(n.rowid);
        if (c) c.vector = n.similarity;
        // Not among the keyword hits: its BM25 is below the pool's last one, counted as 0.
        else candidates.set(n.rowid, { rowid: n.rowid, bm25: 0, vector: n.similarity });
      }
      const lexical = isLexical(this.upkeep.embedder);
      for (const c of candidates.values()) {
        if (c.vector === null) c.vector = this.vectors.similarity(space, queryVector, c.rowid) ?? null;
        if (c.vector === null) c.pending = this.upkeep.vectorPending(space, c.rowid);
        else if (lexical) c.vectorRank = pivoted(c.vector, this.keywords.lengthRatio(c.rowid));
      }
    }

    const ranked = fuse(candidates.values(), weights)
      .filter((c) => c.score > 0)
      .sort((a, b) => b.score - a.score || a.rowid - b.rowid)
      .slice(0, k);
    const items = this.keywords.getMany(ranked.map((c) => c.rowid));
    return ranked.map((c) => {
      const item = items.get(c.rowid)!;
      return {
        id: item.id,
        kind: item.kind,
        text: item.text,
        ts: item.ts,
        meta: item.meta,
        score: c.score,
        bm25: c.bm25,
        vector: c.vector,
      };
    });
  }

  /**
   * How similar the query is to each of these items: cosine in the current vector space for items that
   * have a vector there, otherwise BM25 divided by the best BM25 among the ids (0 … 1). Unknown ids are
   * absent from the result.
   */
  async scoreIds(query: QueryInput, ids: readonly string[]): Promise<Map<string, number>> {
    const q = asPrepared(query);
    const items = this.keywords.byIds(ids);
    const out = new Map<string, number>();
    if (items.length === 0) return out;
    const space = this.upkeep.space;
    const vector = space ? await this.upkeep.queryVector(q) : null;
    const rest: StoredItem[] = [];
    for (const item of items) {
      const sim =
        space && vector && this.upkeep.space === space ? this.vectors.similarity(space, vector, item.rowid) : undefined;
      if (sim === undefined) rest.push(item);
      else out.set(item.id, sim);
    }
    if (rest.length > 0) {
      const bm25 = this.keywords.scoreRows(
        q.tokens,
        rest.map((i) => i.rowid),
      );
      const max = Math.max(0, ...bm25.values());
      for (const item of rest) out.set(item.id, max > 0 ? (bm25.get(item.rowid) ?? 0) / max : 0);
    }
    return out;
  }

  /** Cosine similarity of two stored items in the current space; null when either has no vector there. */
  similarity(a: string, b: string): number | null {
    const space = this.upkeep.space;
    const ra = this.keywords.byId(a);
    const rb = this.keywords.byId(b);
    if (!space || !ra || !rb) return null;
    const va = this.vectors.vectorOf(space, ra.rowid);
    return (va && this.vectors.similarity(space, va, rb.rowid)) ?? null;
  }

  /**
   * The `k` items most similar to item `id` that pass the filter (never `id` itself), best first: by
   * vector when it has one in the current space, else by BM25 of its text divided by its own BM25.
   */
  nearest(id: string, k: number, filter?: SearchFilter): Array<{ id: string; similarity: number }> {
    if (!Number.isInteger(k) || k <= 0) throw positiveK("nearest", k);
    const item = this.keywords.byId(id);
    if (!item) return [];
    const f = normalFilter(filter);
    const space = this.upkeep.space;
    const vector = space ? this.vectors.vectorOf(space, item.rowid) : undefined;
    let found: Neighbour[];
    if (space && vector) found = filteredKnn(this.keywords, this.vectors, space, vector, k + 1, f);
    else {
      const tokens = tokenize(item.text);
      const self = this.keywords.scoreRows(tokens, [item.rowid]).get(item.rowid) ?? 0;
      found =
        self > 0
          ? this.keywords.top(tokens, k + 1, f).map((h) => ({ rowid: h.rowid, similarity: Math.min(1, h.s / self) }))
          : [];
    }
    return found
      .filter((n) => n.rowid !== item.rowid)
      .slice(0, k)
      .map((n) => ({ id: this.keywords.get(n.rowid)!.id, similarity: n.similarity }));
  }

  get(id: string): StoredItem | null {
    return this.keywords.byId(id) ?? null;
  }

  /** A page of items in ts order. */
  list(opts: ListOptions = {}): StoredItem[] {
    const { offset = 0, limit = 100, order = "asc", ...filter } = opts;
    if (!Number.isInteger(offset) || offset < 0) invalid(`list offset must be an integer ≥ 0, got ${offset}`);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST) {
      invalid(`list limit must be an integer from 1 to ${MAX_LIST}, got ${limit}; page with offset`);
    }
    if (order !== "asc" && order !== "desc") invalid(`list order must be "asc" or "desc", got ${order}`);
    return this.keywords.list(normalFilter(filter), offset, limit, order);
  }

  /** The oldest and newest ts among the items of these kinds; null when there are none. */
  tsSpan(kinds: readonly string[]): { min: number; max: number } | null {
    return this.keywords.tsSpan(kinds);
  }

  count(filter?: SearchFilter): number {
    return this.keywords.countWhere(normalFilter(filter));
  }

  status(): SearchStatus {
    const space = this.upkeep.space;
    return {
      items: this.keywords.count(),
      fingerprint: space?.fingerprint ?? null,
      dimension: space?.dimension ?? null,
      vectors: !space ? "none" : space.complete ? "complete" : "partial",
      vectorSearch: !space ? null : "exact",
      reembed: this.upkeep.job?.status() ?? null,
      lastError: this.upkeep.lastError,
    };
  }

  /**
   * Waits for queued vectors, stops re-embedding (resumable) and closes the database if this index opened it.
   */
  async close(): Promise<void> {
    await this.upkeep.stop();
    if (this.ownsDb) this.db.close();
  }

  /** A rolled-back write leaves the in-memory keyword index ahead of the table: rebuild it from the table. */
  private inTransaction<T>(fn: () => T): T {
    try {
      return this.vectors.transaction(fn);
    } catch (err) {
      this.keywords.reload();
      throw err;
    }
  }
}

function positiveK(method: string, k: number): HomeAgentError {
  return new HomeAgentError({ code: "invalid_argument", message: `${method} k must be a positive integer, got ${k}` });
}

function invalid(message: string): never {
  throw new RetrievalError({ code: "invalid_filter", message });
}
