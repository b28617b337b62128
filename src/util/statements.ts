/**
 * Prepared statements cached per database and SQL text. Preparing costs tens of microseconds — more than
 * running a small indexed query — and memory and search run several small queries per turn, so each SQL
 * text is prepared once per connection. SQL built from a filter (a meta key is part of its text) could come
 * in endless variants: each database keeps its most recently used MAX_CACHED.
 */
import type Database from "better-sqlite3";
import type { Statement } from "better-sqlite3";

const MAX_CACHED = 256;
const byDb = new WeakMap<Database.Database, Map<string, Statement<unknown[], unknown>>>();

export function cachedStatement<P extends unknown[] | object = unknown[], R = unknown>(
  db: Database.Database,
  sql: string,
): Statement<P, R> {
  let cache = byDb.get(db);
  if (!cache) {
    cache = new Map();
    byDb.set(db, cache);
  }
  let st = cache.get(sql);
  if (st) {
    // Most recently used last: the first in the map is the one to drop.
    cache.delete(sql);
  } else {
    st = db.prepare(sql);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  }
  cache.set(sql, st);
  return st as unknown as Statement<P, R>;
}
