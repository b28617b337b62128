/**
 * Time-sliced job steps: work through items until a step has used its share of the lane (35 ms of the
 * kernel's 50, leaving room for the item that crosses it and a garbage collection), then yield so a
 * waiting turn runs before the next step.
 */
import { performance } from "node:perf_hooks";
import type { DB } from "../store.js";
import { checkpointWal } from "../wal-checkpoint.js";
import type { Job } from "./ports.js";

export const STEP_BUDGET_MS = 35;

export interface SliceOptions {
  /** Milliseconds a step may use before it yields (default STEP_BUDGET_MS). */
  budgetMs?: number;
  /**
   * Called at the start of every step. Turns ran since the last step and may have removed what the job
   * holds in memory (a forget, a doc_query): drop or re-check it here.
   */
  begin?: () => void;
  /** memory.db, when the job writes to it: see walPacer. */
  db?: DB;
}

/**
 * Call at the start of each step of a job that writes: from the second step on, it checkpoints what the
 * previous step wrote (PASSIVE, a few ms for a step's writes). A job that writes for many steps in a row
 * leaves no idle moment for memory.db's checkpoint timer, and a graph commit logs ~20 pages, so within
 * ~500 commits SQLite's backstop (10,000 pages) would copy the whole log inside one commit: 40–100 ms in
 * a single step. No-op without a db.
 */
export function walPacer(db?: DB): () => void {
  let first = true;
  return () => {
    if (first || !db) {
      first = false;
      return;
    }
    checkpointWal(db);
  };
}

/**
 * A job that calls `each` on the items `next()` hands out (null = done), several per step while the step
 * is under budget. `next` is called lazily, so it may read fresh state each time.
 */
export function slicedJob<T>(
  name: string,
  next: () => T | null,
  each: (item: T) => void,
  opts: SliceOptions = {},
): Job {
  const budgetMs = opts.budgetMs ?? STEP_BUDGET_MS;
  const checkpoint = walPacer(opts.db);
  return {
    name,
    async step(signal) {
      const start = performance.now();
      checkpoint();
      opts.begin?.();
      for (;;) {
        if (signal.aborted) return false;
        const item = next();
        if (item === null) return false;
        each(item);
        if (performance.now() - start >= budgetMs) return true;
      }
    },
  };
}
