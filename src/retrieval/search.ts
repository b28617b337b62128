/**
 * SearchIndex: the one retrieval API every memory layer and the knowledge base use. Items live in one
 * SQLite database with a BM25 keyword index and vectors of the current embedding provider; `search`
 * fuses both. Items are searchable by keyword the moment `add` has written them; their vectors follow.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { type EmbeddingProvider, textInput } from "../embedding/spi.js";
import { cleanText, tokenize } from "../embedding/text.js";
import { isZeroVector } from "../embedding/vector-math.js";
import { RetrievalError } from "./errors.js";
import { type Candidate, DEFAULT_WEIGHTS, fuse, validWeights, type Weights } from "./fusion.js";
import { type ItemInput, KeywordIndex } from "./keyword-index.js";
import { embedRows, ReembedJob, type ReembedOptions, type ReembedProgress, type VectorStores } from "./reembed.js";
import { VectorIndex, type VectorSpace } from "./vector-index.js";

export type { Weights } from "./fusion.js";
export type { ItemInput } from "./keyword-index.js";

export interface SearchIndexOptions {
  /** null or absent: keyword search only. */
  embedder?: EmbeddingProvider | null;
  /** Default weights of the two components (0.5 / 0.5). */
  weights?: Weights;
  /** Start re-embedding automatically when the current space is incomplete (default true). */
  autoReembed?: boolean;
  reembed?: ReembedOptions;
  /** Called when embedding fails; the items stay searchable by keyword. */
  onError?: (err: Error) => void;
}

export interface SearchOptions {
  k?: number;
  filter?: { kind?: string };
  weights?: Partial<Weights>;
}

export interface SearchHit {
  id: string;
  kind: string;
  text: string;
  meta: Record<string, unknown>;
  /** Fused score: weighted sum of both components, each divided by its maximum for this query. */
  score: number;
  /** Raw BM25 (higher is better, 0 = no query token in the item). */
  bm25: number;
  /** Cosine similarity with the query; null when the item has no vector in the current space. */
  vector: number | null;
}

export interface SearchStatus {
  items: number;
  fingerprint: string | null;
  dimension: number | null;
  /** "none": keyword search only; "partial": some items lack a vector in the current space. */
  vectors: "none" | "complete" | "partial";
  /** "exact": nearest vectors are searched over all items; "rerank": vectors score keyword candidates only. */
  vectorSearch: "exact" | "rerank" | null;
  reembed: ReembedProgress | null;
  lastError: string | null;
}

/** Candidates fetched from each component before fusion: a few times k, so fusion can reorder. */
const POOL_FACTOR = 4;
const MIN_POOL = 40;
/**
 * vec0's KNN is a brute-force scan (≈ 2.5 ns per stored float here: 50 ms for 20k × 1024 dimensions).
 * Above this many stored floats it would dominate every query, so the vectors then only rerank the
 * keyword candidates; status() reports which mode is in use.
 */
const EXACT_KNN_MAX_FLOATS = 2_000_000;

export class SearchIndex {
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly keywords: KeywordIndex;
  private readonly vectors: VectorIndex;
  private readonly stores: VectorStores;
  private readonly weights: Weights;
  private embedder: EmbeddingProvider | null = null;
  private space: VectorSpace | null = null;
  private job: ReembedJob | null = null;
  private lastError: string | null = null;

  constructor(
    db: Database.Database | string,
    private readonly opts: SearchIndexOptions = {},
  ) {
    if (typeof db === "string") {
      if (db !== ":memory:") mkdirSync(dirname(db), { recursive: true });
      this.db = new Database(db);
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      this.ownsDb = true;
    } else {
      this.db = db;
      this.ownsDb = false;
    }
    this.keywords = new KeywordIndex(this.db);
    this.vectors = new VectorIndex(this.db);
    this.stores = { db: this.db, keywords: this.keywords, vectors: this.vectors };
    this.weights = validWeights({ ...DEFAULT_WEIGHTS, ...opts.weights });
    this.setEmbedder(opts.embedder ?? null);
  }

  /**
   * Switches the embedding provider. Vectors of another fingerprint or dimension are never compared with
   * its queries; if items lack vectors in its space, re-embedding starts (unless autoReembed is false).
   */
  setEmbedder(embedder: EmbeddingProvider | null): void {
    void this.job?.stop();
    this.job = null;
    this.embedder = embedder;
    if (!embedder) {
      this.space = null;
      return;
    }
    const { fingerprint, dimension } = embedder.info();
    this.space = this.vectors.open(fingerprint, dimension, this.keywords.count() === 0);
    if (this.space.complete) this.dropOtherSpaces(this.space);
    else if (this.opts.autoReembed !== false) this.reembed();
  }

  /** Starts (or resumes) filling in the vectors missing from the current space; null if none are. */
  reembed(): ReembedJob | null {
    const space = this.space;
    const embedder = this.embedder;
    if (!space || !embedder || space.complete) return null;
    if (this.job && this.job.status().state === "running") return this.job;
    const job = new ReembedJob(this.stores, space, embedder, {
      ...this.opts.reembed,
      onComplete: (done) => this.dropOtherSpaces(done),
    });
    this.job = job;
    // A job replaced by a provider switch may fail on its dropped table; only the current one matters.
    void job.finished.then((p) => {
      if (!p.error || this.job !== job) return;
      this.fail(
        new RetrievalError({
          code: "reembed_failed",
          message: `re-embedding with "${embedder.name}" failed: ${p.error}; items without a vector are ranked by keyword until it is run again`,
          cause: job.failure,
        }),
      );
    });
    return job;
  }

  /** Inserts or replaces items. Resolves once they are durable and their vectors written (if possible). */
  async add(items: readonly ItemInput[]): Promise<void> {
    const changed = this.inTransaction(() => {
      const rows = this.keywords.upsert(items);
      // A vector of the old text must not outlive it, even if embedding the new text fails below.
      this.vectors.delete(rows.filter((r) => r.replaced).map((r) => r.rowid));
      return rows;
    });
    const space = this.space;
    const embedder = this.embedder;
    if (changed.length === 0) return;
    this.markOtherSpacesStale(Math.min(...changed.map((r) => r.rowid)));
    if (!space || !embedder) return;
    try {
      await embedRows(this.stores, space, embedder, changed);
    } catch (err) {
      // The vectors are missing: mark the space incomplete from the first affected item on, so the next
      // re-embedding run fills them in.
      const first = Math.min(...changed.map((r) => r.rowid));
      this.vectors.setProgress(space, Math.min(space.cursor, first - 1), false);
      this.fail(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Removes items by id; returns how many existed. */
  remove(ids: readonly string[]): number {
    return this.inTransaction(() => {
      const gone = this.keywords.remove(ids);
      this.vectors.delete(gone);
      return gone.length;
    });
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchHit[]> {
    const k = opts.k ?? 10;
    if (!Number.isInteger(k) || k <= 0) throw new Error(`search k must be a positive integer, got ${k}`);
    const weights = validWeights({ ...this.weights, ...opts.weights });
    const kind = opts.filter?.kind;
    const pool = Math.max(k * POOL_FACTOR, MIN_POOL);
    const tokens = weights.bm25 > 0 ? tokenize(query) : [];

    const candidates = new Map<number, Candidate>();
    if (tokens.length > 0) {
      const top = this.keywords.top(tokens, pool, kind);
      for (const r of top) candidates.set(r.rowid, { rowid: r.rowid, bm25: r.s, vector: null });
    }

    const space = weights.vector > 0 ? this.space : null;
    const queryVector = space ? await this.embedQuery(query) : null;
    // The provider may have been switched while the query was embedded: then its vector is of no use.
    if (space && queryVector && this.space?.id === space.id) {
      if (this.exactKnn(space)) {
        for (const n of this.vectors.knn(space, queryVector, pool, kind)) {
          const c = candidates.get(n.rowid);
          if (c) c.vector = n.similarity;
          // Not among the keyword hits: its BM25 is below the pool's last one, counted as 0.
          else candidates.set(n.rowid, { rowid: n.rowid, bm25: 0, vector: n.similarity });
        }
      }
      for (const c of candidates.values()) {
        if (c.vector === null) c.vector = this.vectors.similarity(space, queryVector, c.rowid) ?? null;
      }
    }

    const ranked = fuse(candidates.values(), weights)
      .filter((c) => c.score > 0)
      .sort((a, b) => b.score - a.score || a.rowid - b.rowid)
      .slice(0, k);
    return ranked.map((c) => {
      const item = this.keywords.get(c.rowid)!;
      return {
        id: item.id,
        kind: item.kind,
        text: item.text,
        meta: item.meta,
        score: c.score,
        bm25: c.bm25,
        vector: c.vector,
      };
    });
  }

  status(): SearchStatus {
    const space = this.space;
    return {
      items: this.keywords.count(),
      fingerprint: space?.fingerprint ?? null,
      dimension: space?.dimension ?? null,
      vectors: !space ? "none" : space.complete ? "complete" : "partial",
      vectorSearch: !space ? null : this.exactKnn(space) ? "exact" : "rerank",
      reembed: this.job?.status() ?? null,
      lastError: this.lastError,
    };
  }

  /** Stops re-embedding (resumable) and closes the database if this index opened it. */
  async close(): Promise<void> {
    await this.job?.stop();
    if (this.ownsDb) this.db.close();
  }

  private async embedQuery(query: string): Promise<Float32Array | null> {
    const text = cleanText(query);
    if (!text || !this.embedder) return null;
    try {
      const [v] = await this.embedder.embed([textInput(text)]);
      return v && !isZeroVector(v) ? v : null;
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
      return null;
    }
  }

  /** A rolled-back write leaves the in-memory keyword index ahead of the table: rebuild it from the table. */
  private inTransaction<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn)();
    } catch (err) {
      this.keywords.reload();
      throw err;
    }
  }

  private exactKnn(space: VectorSpace): boolean {
    return this.vectors.size(space) * space.dimension <= EXACT_KNN_MAX_FLOATS;
  }

  /**
   * Spaces other than the current one get no vectors for items written now, so they are no longer complete:
   * switching back to one of them re-embeds from the first changed item on.
   */
  private markOtherSpacesStale(firstChanged: number): void {
    for (const s of this.vectors.spaces()) {
      if (s.id !== this.space?.id && (s.complete || s.cursor >= firstChanged)) {
        this.vectors.setProgress(s, Math.min(s.cursor, firstChanged - 1), false);
      }
    }
  }

  private dropOtherSpaces(keep: VectorSpace): void {
    for (const s of this.vectors.spaces()) if (s.id !== keep.id) this.vectors.drop(s);
  }

  private fail(err: Error): void {
    this.lastError = err.message;
    this.opts.onError?.(err);
  }
}
