/**
 * WAL checkpoints off the turn path. SQLite's automatic checkpoint runs inside the commit that pushes the
 * log past its threshold, so every few dozen turns one user turn paid for copying the whole log into the
 * database file and syncing it (10–20 ms at 10k entities and 10k documents, against ≈ 1 ms for the
 * turn's own writes; bench/memory.ts turnWork). Here the automatic checkpoint is only a backstop at a much
 * larger log, and a timer checkpoints while the event loop is idle — between turns, or while a turn waits
 * for the model. PASSIVE mode never waits for a reader or a writer, so it cannot stall anything either.
 * Durability is unchanged: a commit is in the log before it returns, checkpointed or not.
 */
import type Database from "better-sqlite3";
import { HomeAgentError } from "../util/errors.js";

export interface WalCheckpointOptions {
  /** How often the timer checkpoints (ms; default 1,000). */
  everyMs?: number;
  /**
   * Log pages at which a commit checkpoints by itself (SQLite's wal_autocheckpoint): reached only when
   * the timer cannot run, e.g. the event loop is busy for a long stretch. Default 10,000 (≈ 40 MB).
   */
  backstopPages?: number;
  /** A checkpoint failed (the backstop still bounds the log). */
  onError?: (err: unknown) => void;
}

export const WAL_CHECKPOINT_DEFAULTS = { everyMs: 1_000, backstopPages: 10_000 } as const;

export interface CheckpointResult {
  /** Pages in the log. */
  log: number;
  /** Pages of it now in the database file. */
  checkpointed: number;
}

/**
 * Checkpoints as much of the log as it can without waiting (PASSIVE); null when the store is closed, in
 * a transaction, or not in WAL mode.
 */
export function checkpointWal(db: Database.Database): CheckpointResult | null {
  if (!db.open || db.inTransaction || db.memory) return null;
  const [row] = db.pragma("wal_checkpoint(PASSIVE)") as Array<{ busy: number; log: number; checkpointed: number }>;
  if (!row || row.log < 0) return null;
  return { log: row.log, checkpointed: row.checkpointed };
}

/**
 * Moves this handle's checkpoints to an unref'd timer (it never keeps the process alive, and stops by
 * itself once the handle is closed). Returns a function that stops it and restores SQLite's default.
 */
export function scheduleWalCheckpoints(db: Database.Database, opts: WalCheckpointOptions = {}): () => void {
  const everyMs = opts.everyMs ?? WAL_CHECKPOINT_DEFAULTS.everyMs;
  const backstop = opts.backstopPages ?? WAL_CHECKPOINT_DEFAULTS.backstopPages;
  if (!Number.isInteger(everyMs) || everyMs < 1) {
    throw new HomeAgentError({ code: "invalid_argument", message: `everyMs must be an integer ≥ 1, got ${everyMs}` });
  }
  if (!Number.isInteger(backstop) || backstop < 1) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: `backstopPages must be an integer ≥ 1, got ${backstop}`,
    });
  }
  db.pragma(`wal_autocheckpoint = ${backstop}`);
  const timer = setInterval(() => {
    if (!db.open) {
      clearInterval(timer);
      return;
    }
    try {
      checkpointWal(db);
    } catch (err) {
      opts.onError?.(err);
    }
  }, everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (db.open) db.pragma("wal_autocheckpoint = 1000");
  };
}
