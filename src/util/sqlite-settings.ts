/**
 * The settings of a database that holds what the user said (memory.db, transcripts.db, the knowledge index):
 * write-ahead log with NORMAL sync (a commit survives the process being killed; a power cut may lose the last
 * few) and secure_delete, so a removed row's text is overwritten rather than left in free pages (forgetting;
 * the scrub does the rest). One copy, so the stores cannot drift apart, and one way to open such a file.
 */
import Database from "better-sqlite3";
import { HomeAgentError } from "./errors.js";

export function useUserDataSettings(db: Database.Database): void {
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("secure_delete = ON");
}

/**
 * Opens such a database with those settings and foreign keys on; `what` names it in the error ("the memory
 * store") when the file cannot be opened.
 */
export function openUserDataDb(path: string, what: string): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (err) {
    throw new HomeAgentError({
      code: "memory_store_open",
      message: `cannot open ${what} ${path}: check that the file is readable and writable`,
      cause: err,
    });
  }
  try {
    useUserDataSettings(db);
    db.pragma("foreign_keys = ON");
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
