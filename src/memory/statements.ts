/**
 * Prepared statements cached per database and SQL text. Preparing costs tens of microseconds — more than
 * running a small indexed query — and memory runs several small queries per turn, so each SQL text is
 * prepared once per connection.
 */
import { forgetMatcher } from "@homeagent/sdk";
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

const matching = new WeakSet<DB>();

/**
 * `WHERE` text true for rows whose `expr` mentions every term as forgetting matches (forgetMatcher of
 * @homeagent/sdk: case-insensitive in every script, NFKC, JSON-escaped forms), so the SQL and the JS sides
 * of a forget can never disagree. SQLite's own lower() and LIKE fold ASCII only.
 */
export function containsAll(db: DB, expr: string, terms: readonly string[]): { sql: string; params: string[] } {
  if (!matching.has(db)) {
    let last: { key: string; test: (text: string) => boolean } | undefined;
    db.function("ha_mentions", { deterministic: true }, (text: unknown, key: unknown) => {
      if (typeof text !== "string" || typeof key !== "string") return 0;
      if (last?.key !== key) last = { key, test: forgetMatcher(JSON.parse(key) as string[]) };
      return last.test(text) ? 1 : 0;
    });
    matching.add(db);
  }
  return { sql: `ha_mentions(${expr}, ?)`, params: [JSON.stringify(terms)] };
}
