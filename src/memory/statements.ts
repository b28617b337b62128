/**
 * Prepared statements cached per database and SQL text. Preparing costs tens of microseconds — more than
 * running a small indexed query — and memory runs several small queries per turn, so each SQL text is
 * prepared once per connection.
 */
import type { Statement } from "better-sqlite3";
import type { DB } from "./store.js";

const byDb = new WeakMap<DB, Map<string, Statement<unknown[], unknown>>>();

export function cachedStatement<P extends unknown[] | object = unknown[], R = unknown>(
  db: DB,
  sql: string,
): Statement<P, R> {
  let cache = byDb.get(db);
  if (!cache) {
    cache = new Map();
    byDb.set(db, cache);
  }
  let st = cache.get(sql);
  if (!st) {
    st = db.prepare(sql);
    cache.set(sql, st);
  }
  return st as unknown as Statement<P, R>;
}

const folding = new WeakSet<DB>();

/**
 * `WHERE` text matching every term, case-insensitively for every script: SQLite's lower() and LIKE fold
 * ASCII only, so "émile" would never match "Émile". Terms must already be lower-case (JS toLowerCase).
 */
export function containsAll(db: DB, expr: string, terms: readonly string[]): { sql: string; params: string[] } {
  if (!folding.has(db)) {
    db.function("ha_fold", { deterministic: true }, (s: unknown) => (typeof s === "string" ? s.toLowerCase() : s));
    folding.add(db);
  }
  const params = terms.map((t) => `%${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const sql = params.map(() => `ha_fold(${expr}) LIKE ? ESCAPE '\\'`).join(" AND ");
  return { sql: `(${sql})`, params };
}
