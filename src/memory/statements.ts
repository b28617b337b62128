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
