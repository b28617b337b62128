/**
 * Keyed hashes for what memory must recognise again without keeping its text (a fact the user removed).
 * A plain hash of a short name is undone by hashing a dictionary; an HMAC under a random key of this
 * memory.db is not, for anyone who holds the hashes without the key. The key is created once and lives in
 * memory.db itself, so a copied or restored store still recognises its own hashes.
 */
import { createHmac, randomBytes } from "node:crypto";
import { type DB, migrateTables } from "../store.js";

const KEY_MIGRATIONS: readonly string[] = [
  `CREATE TABLE memory_keys (
     name TEXT PRIMARY KEY,
     key BLOB NOT NULL
   );`,
];

const KEY_BYTES = 32;

export type KeyedHash = (purpose: string, text: string) => string;

/** The hasher for `name`'s key (made on first use); `purpose` keeps hashes of different kinds apart. */
export function keyedHash(db: DB, name: string, hexChars = 32): KeyedHash {
  migrateTables(db, "keys", KEY_MIGRATIONS);
  db.prepare("INSERT OR IGNORE INTO memory_keys (name, key) VALUES (?, ?)").run(name, randomBytes(KEY_BYTES));
  const key = db.prepare("SELECT key FROM memory_keys WHERE name = ?").pluck().get(name) as Buffer;
  return (purpose, text) =>
    createHmac("sha256", key).update(`${purpose}\u0000${text}`).digest("hex").slice(0, hexChars);
}
