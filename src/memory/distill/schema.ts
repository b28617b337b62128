/**
 * The distillation tables in memory.db, as their own migration layer ("distill"): the rule pipeline's raw
 * candidates (so a line said just before a restart is still distilled after it), the merge loop's
 * "already proposed" markers (so a restart does not ask the model about the same pair again) and the
 * archive loop's place inside a long document (so a restart resumes there instead of committing its first
 * turns again).
 */
import { type DB, migrateTables } from "../store.js";

export const DISTILL_MIGRATIONS: readonly string[] = [
  `CREATE TABLE distill_candidates (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     ts INTEGER NOT NULL,
     session TEXT NOT NULL,
     role TEXT NOT NULL,
     content TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX distill_candidates_ts ON distill_candidates(ts);
   CREATE TABLE distill_no_merge (
     a TEXT NOT NULL,
     b TEXT NOT NULL,
     rounds INTEGER NOT NULL,
     PRIMARY KEY (a, b)
   );`,
  `CREATE TABLE distill_archive_progress (
     doc_id TEXT PRIMARY KEY,
     next_turn INTEGER NOT NULL,
     updated_at INTEGER NOT NULL
   );`,
  // A candidate of a turn that was replaced waits aside, distilled only if that version is chosen back.
  "ALTER TABLE distill_candidates ADD COLUMN parked INTEGER NOT NULL DEFAULT 0",
];

export function migrateDistill(db: DB): void {
  migrateTables(db, "distill", DISTILL_MIGRATIONS);
}
