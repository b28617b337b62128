/**
 * memory.db: one SQLite file in WAL mode for everything the agent remembers, with numbered migrations
 * applied in order inside a transaction.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export type DB = Database.Database;

const MIGRATIONS: string[] = [
  `CREATE TABLE context_events (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     ts INTEGER NOT NULL,
     role TEXT NOT NULL,
     source TEXT NOT NULL,
     channel TEXT NOT NULL,
     text TEXT NOT NULL,
     tools TEXT NOT NULL DEFAULT '[]',
     in_window INTEGER NOT NULL DEFAULT 1
   );
   CREATE INDEX context_events_window ON context_events(in_window, id);`,
  // Why a user input got no reply (its turn failed); NULL = answered, or not finished yet.
  "ALTER TABLE context_events ADD COLUMN unanswered TEXT;",
];

export function openMemoryStore(path: string): DB {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  migrate(db);
  return db;
}

function migrate(db: DB): void {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new Error(
      `memory.db is at schema version ${version}, newer than this HomeAgent (${MIGRATIONS.length}): upgrade HomeAgent`,
    );
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
