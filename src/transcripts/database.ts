/**
 * transcripts.db: the chat log's own SQLite file. Not memory.db: the log is written at every step of every
 * turn, and in memory's file those small commits would sit between memory's own (archive transactions,
 * checkpoints between turns) and share its write lock; a file of its own also keeps its size its own. The
 * same settings as every store of the user's words (util/sqlite-settings.ts).
 */
import type Database from "better-sqlite3";
import { openUserDataDb } from "../util/sqlite-settings.js";

const BUSY_TIMEOUT_MS = 250;

export function openTranscriptsDb(path: string): Database.Database {
  const db = openUserDataDb(path, "the chat history");
  // A write that meets the scrub's VACUUM fails after this instead of holding the daemon for 5 s (the
  // default); the bus logs it, and the turn goes on.
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db;
}
