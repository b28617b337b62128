/**
 * The settings of a database that holds what the user said (memory.db, the knowledge index): write-ahead
 * log with NORMAL sync (a commit survives the process being killed; a power cut may lose the last few) and
 * secure_delete, so a removed row's text is overwritten rather than left in free pages (forgetting;
 * the scrub does the rest). One copy, so the two stores cannot drift apart.
 */
import type Database from "better-sqlite3";

export function useUserDataSettings(db: Database.Database): void {
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("secure_delete = ON");
}
