/**
 * Re-embedding: when the embedding provider's fingerprint changes, every item needs a vector in the new
 * space. That can take hours with a remote model, so it runs in the background in batches while search
 * keeps working (items without a vector in the current space are ranked by BM25 alone). The cursor is
 * written in the same transaction as each batch's vectors, so a restart resumes where it stopped and no
 * batch is half-applied.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type Database from "better-sqlite3";
import { type EmbeddingProvider, textInput } from "../embedding/spi.js";
import { isZeroVector } from "../embedding/vector-math.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import type { ChangedRow, KeywordIndex } from "./keyword-index.js";
import type { VectorIndex, VectorSpace } from "./vector-index.js";

export interface ReembedProgress {
  fingerprint: string;
  dimension: number;
  done: number;
  total: number;
  state: "running" | "done" | "failed" | "stopped";
  error?: string;
}

export interface ReembedOptions {
  batchSize?: number;
  /** Rows someone else is embedding right now (SearchIndex's write queue): not embedded twice. */
  skip?: (rowid: number) => boolean;
  onProgress?: (p: ReembedProgress) => void;
}

export interface VectorStores {
  db: Database.Database;
  keywords: KeywordIndex;
  vectors: VectorIndex;
}

/**
 * Embeds `rows` and writes their vectors into `space`, skipping rows that changed or vanished while the
 * provider was working (their new text gets its own vector) and texts with nothing to embed.
 */
export async function embedRows(
  stores: VectorStores,
  space: VectorSpace,
  embedder: EmbeddingProvider,
  rows: readonly ChangedRow[],
  after?: () => void,
): Promise<number> {
  if (rows.length === 0) return 0;
  const vectors = await embedder.embed(rows.map((r) => textInput(r.text)));
  if (vectors.length !== rows.length) {
    throw new HomeAgentError({
      code: "embedding_invalid_data",
      message: `embedding provider "${embedder.name}" returned ${vectors.length} vectors for ${rows.length} texts`,
    });
  }
  let written = 0;
  stores.vectors.transaction(() => {
    rows.forEach((row, i) => {
      const now = stores.keywords.get(row.rowid);
      if (!now || now.text !== row.text || now.kind !== row.kind || isZeroVector(vectors[i])) return;
      stores.vectors.put(space, row.rowid, row.kind, vectors[i]);
      written++;
    });
    after?.();
  });
  return written;
}

export class ReembedJob {
  readonly finished: Promise<ReembedProgress>;
  /** What stopped a failed run, as thrown (the progress holds only its message). */
  failure: unknown;
  private readonly progress: ReembedProgress;
  private stopRequested = false;

  constructor(
    private readonly stores: VectorStores,
    private readonly space: VectorSpace,
    private readonly embedder: EmbeddingProvider,
    private readonly opts: ReembedOptions & { onComplete: (space: VectorSpace) => void },
  ) {
    this.progress = {
      fingerprint: space.fingerprint,
      dimension: space.dimension,
      done: stores.keywords.countUpTo(space.cursor),
      total: stores.keywords.count(),
      state: "running",
    };
    this.finished = this.run();
  }

  status(): ReembedProgress {
    return { ...this.progress };
  }

  /** Stops after the current batch; the cursor is kept, so a later job resumes from it. */
  stop(): Promise<ReembedProgress> {
    this.stopRequested = true;
    return this.finished;
  }

  private async run(): Promise<ReembedProgress> {
    const { keywords, vectors } = this.stores;
    const batchSize = this.opts.batchSize ?? 64;
    try {
      for (;;) {
        // Yield first so the job never starves the daemon, even with a provider that answers synchronously.
        await yieldToEventLoop();
        if (this.stopRequested) return this.finish("stopped");
        const batch = keywords.after(this.space.cursor, batchSize);
        if (batch.length === 0) break;
        const todo = batch.filter((r) => !vectors.has(this.space, r.rowid) && !this.opts.skip?.(r.rowid));
        const cursor = batch[batch.length - 1].rowid;
        await embedRows(this.stores, this.space, this.embedder, todo, () =>
          vectors.setProgress(this.space, cursor, false),
        );
        if (todo.length === 0) vectors.setProgress(this.space, cursor, false);
        this.progress.done += batch.length;
        this.progress.total = Math.max(this.progress.total, this.progress.done);
        this.opts.onProgress?.(this.status());
      }
      vectors.setProgress(this.space, this.space.cursor, true);
      this.progress.total = this.progress.done;
      this.opts.onComplete(this.space);
      return this.finish("done");
    } catch (err) {
      this.failure = err;
      this.progress.error = errorMessage(err);
      return this.finish("failed");
    }
  }

  private finish(state: ReembedProgress["state"]): ReembedProgress {
    this.progress.state = state;
    this.opts.onProgress?.(this.status());
    return this.status();
  }
}
