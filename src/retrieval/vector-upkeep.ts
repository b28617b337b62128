/**
 * Keeping a SearchIndex's vectors in step with its items: the current embedding provider and its vector
 * space, the queue that embeds written items after their transaction commits, re-embedding when the space
 * lacks vectors, the "complete" mark that says it does not, and query vectors in that space. SearchIndex
 * ranks with what this keeps; every embedding failure lands here and leaves keyword search working.
 */
import { type EmbeddingProvider, textInput } from "../embedding/spi.js";
import { cleanText } from "../embedding/text.js";
import { isZeroVector } from "../embedding/vector-math.js";
import { HomeAgentError } from "../util/errors.js";
import { EmbedQueue } from "./embed-queue.js";
import { RetrievalError } from "./errors.js";
import type { ChangedRow, KeywordIndex } from "./keyword-index.js";
import { isLexical, lexicalQueryVector } from "./lexical-query.js";
import { type PreparedText, spaceKey } from "./query.js";
import { embedRows, ReembedJob, type VectorStores } from "./reembed.js";
import type { SearchIndexOptions } from "./types.js";
import type { VectorIndex, VectorSpace } from "./vector-index.js";

/** Tells indexes apart in a prepared query's cache: a lexical query vector depends on its index's IDF. */
let nextInstance = 1;

export class VectorUpkeep {
  // Read by SearchIndex; changed only here.
  embedder: EmbeddingProvider | null = null;
  space: VectorSpace | null = null;
  job: ReembedJob | null = null;
  lastError: string | null = null;
  readonly queue: EmbedQueue;
  private readonly keywords: KeywordIndex;
  private readonly vectors: VectorIndex;
  private readonly instance = nextInstance++;
  /** The space was complete before the queued writes: it is again once they are embedded without error. */
  private restoreComplete = false;

  constructor(
    private readonly stores: VectorStores,
    private readonly opts: SearchIndexOptions,
  ) {
    this.keywords = stores.keywords;
    this.vectors = stores.vectors;
    this.queue = new EmbedQueue(
      (rows) => this.embedQueued(rows),
      () => this.queueDrained(),
      opts.reembed?.batchSize,
    );
  }

  /** See SearchIndex.setEmbedder. */
  setEmbedder(embedder: EmbeddingProvider | null): void {
    void this.job?.stop();
    this.job = null;
    this.restoreComplete = false;
    this.embedder = embedder;
    if (!embedder) {
      this.space = null;
      return;
    }
    const { fingerprint, dimension } = embedder.info();
    this.space = this.vectors.open(fingerprint, dimension, this.keywords.count() === 0);
    this.vectors.load(this.space);
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
      skip: (rowid) => this.queue.has(rowid),
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

  /** After a committed write: removed rows need no vector, changed ones are embedded next. */
  written(changed: readonly ChangedRow[], removed: readonly number[]): void {
    this.queue.forget(removed);
    if (changed.length > 0 && this.space && this.embedder) this.queue.push(changed);
  }

  /** Waits for queued vectors and stops re-embedding (resumable). */
  async stop(): Promise<void> {
    await this.queue.flush();
    await this.job?.stop();
  }

  /** The query's vector in the current space, computed now if it was prepared in another (or none). */
  async queryVector(q: PreparedText): Promise<Float32Array | null> {
    const space = this.space;
    const embedder = this.embedder;
    if (!space || !embedder) return null;
    const key = spaceKey(space.fingerprint, space.dimension) + (isLexical(embedder) ? `@${this.instance}` : "");
    if (q.spaceKey === key) return q.vector;
    const vector = await this.embedQuery(embedder, q.text);
    q.vector = vector;
    q.spaceKey = key;
    return vector;
  }

  /** The item's vector is still to come: queued after its write, or beyond re-embedding's progress. */
  vectorPending(space: VectorSpace, rowid: number): boolean {
    return this.queue.has(rowid) || (!space.complete && rowid > space.cursor);
  }

  /**
   * Items from rowid `first` on now wait for vectors. Every space is marked incomplete from there on, in
   * the writing transaction, so a crash before the vectors are written leaves a space that re-embeds them
   * on the next start. The current space is marked complete again when the queue drains without error.
   */
  markPending(first: number): void {
    for (const s of this.vectors.spaces()) {
      if (s.id === this.space?.id && s.complete && this.queue.size === 0) this.restoreComplete = true;
      if (s.complete || s.cursor >= first) this.vectors.setProgress(s, Math.min(s.cursor, first - 1), false);
    }
    if (this.space) {
      const current = this.vectors.spaces().find((s) => s.id === this.space?.id);
      if (current) Object.assign(this.space, current);
    }
  }

  private async embedQuery(embedder: EmbeddingProvider, query: string): Promise<Float32Array | null> {
    const text = cleanText(query);
    if (!text) return null;
    if (isLexical(embedder)) return lexicalQueryVector(embedder, text, (t) => this.keywords.idf(t));
    try {
      const [v] = await embedder.embed([textInput(text)]);
      return v && !isZeroVector(v) ? v : null;
    } catch (err) {
      this.fail(err);
      return null;
    }
  }

  private async embedQueued(rows: ChangedRow[]): Promise<void> {
    const space = this.space;
    const embedder = this.embedder;
    if (!space || !embedder) return;
    try {
      await embedRows(this.stores, space, embedder, rows);
    } catch (err) {
      // Those vectors are missing: the space is incomplete from them on, so re-embedding fills them in
      // (a run in progress shares this space object and goes back to them).
      this.restoreComplete = false;
      const first = Math.min(...rows.map((r) => r.rowid));
      if (this.space === space) this.vectors.setProgress(space, Math.min(space.cursor, first - 1), false);
      this.fail(err);
    }
  }

  private queueDrained(): void {
    const space = this.space;
    if (!space || !this.restoreComplete || (this.job && this.job.status().state === "running")) return;
    this.restoreComplete = false;
    this.vectors.setProgress(space, this.keywords.maxRowid(), true);
  }

  /** Vectors of other spaces are not computed for new items: switching back re-embeds them. */
  private dropOtherSpaces(keep: VectorSpace): void {
    for (const s of this.vectors.spaces()) if (s.id !== keep.id) this.vectors.drop(s);
  }

  private fail(err: unknown): void {
    const error =
      err instanceof Error
        ? err
        : new HomeAgentError({ code: "embedding_unavailable", message: String(err), cause: err });
    this.lastError = error.message;
    this.opts.onError?.(error);
  }
}
