/**
 * SQL that matches text the way forgetting does (containsAll), so the SQL and the JS sides of a forget
 * cannot disagree. (Cached statements are util/statements.ts.)
 */
import { forgetMatcher } from "@homeagent/sdk";
import type { DB } from "./store.js";

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
