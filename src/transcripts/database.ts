/**
 * transcripts.db: the chat log's own SQLite file. Not memory.db: the log is written at every step of every
 * turn, and in memory's file those small commits would sit between memory's own (archive transactions,
 * checkpoints between turns) and share its write lock; a file of its own also keeps its size its own. The
 * same settings as every store of the user's words: WAL (a commit survives the process being killed) and
 * secure_delete (a forgotten row's text is overwritten; the scrub does the rest).
 */
import Database from "better-sqlite3";
import { HomeAgentError } from "../util/errors.js";
import { useUserDataSettings } from "../util/sqlite-settings.js";

const BUSY_TIMEOUT_MS = 250;

export function openTranscriptsDb(path: string): Database.Database {
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (err) {
    throw new HomeAgentError({
      code: "memory_store_open",
      message: `cannot open the chat history ${path}: check that the file is readable and writable`,
      cause: err,
    });
  }
  useUserDataSettings(db);
  db.pragma("foreign_keys = ON");
  // A write that meets the scrub's VACUUM fails after this instead of holding the daemon for 5 s (the
  // default); the bus logs it, and the turn goes on.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}
