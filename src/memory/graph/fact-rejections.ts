/**
 * Facts the user took out of memory by hand (edited or deleted), kept so that they stay out. The sources
 * that stated them are not rewritten: a pending distill candidate, an archived turn, a document still says
 * "I live in Paris", and the rule distiller and the archive loop would store it again the next time they
 * read it — the user would see the fact they corrected come back. So an automatic commit skips a rejected
 * triple (and counts the skip); an explicit one (the user's own commit, the model's memory tool) lifts the
 * rejection, because someone stated the fact on purpose again.
 *
 * A triple is named by its three names normalised as the graph normalises them (NFKC, whitespace) and
 * lower-cased as sameFact compares them, so "ＰＡＲＩＳ" and "paris" are the same rejected fact in any
 * script. The list is bounded (oldest dropped, with a warning). No text is kept: a rejection is a keyed hash
 * of its triple (all the distiller needs to refuse it again) and keyed hashes of its names and of their words
 * (so that forgetting a name, or a phrase of one, still finds and removes it).
 */
import { tokenize } from "../../embedding/text.js";
import { cachedStatement } from "../../util/statements.js";
import { type DB, hasTable } from "../store.js";
import { type KeyedHash, keyedHash } from "./keyed-hash.js";
import { GraphError, normalizeName } from "./rules.js";

const MAX_REJECTIONS = 10_000;

export interface FactNames {
  subject: string;
  relation: string;
  object: string;
}

export interface RejectionOptions {
  /** Most rejections kept; the oldest are dropped first (default MAX_REJECTIONS). */
  max?: number;
  /** Told when the bound drops rejections. */
  warn?: (msg: string) => void;
}

export interface RejectionStats {
  /** Facts rejected now. */
  facts: number;
  /** Automatic commits of a rejected fact skipped, over the rejections kept. */
  skips: number;
}

/** The three names normalised and lower-cased: one form per fact however it was written. */
function folded(f: FactNames): [string, string, string] {
  return [f.subject, f.relation, f.object].map((x) => normalizeName(x).toLowerCase()) as [string, string, string];
}

/** A rejection made before they were hashed (graph schema v2), converted when the store opens. */
interface TextRow {
  subject: string;
  relation: string;
  object: string;
  rejected_at: number;
  skips: number;
}

export class FactRejections {
  private readonly max: number;
  private readonly hash: KeyedHash;

  constructor(
    private readonly db: DB,
    private readonly opts: RejectionOptions = {},
  ) {
    const max = opts.max ?? MAX_REJECTIONS;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new GraphError({ code: "graph_bad_argument", message: `the rejection bound must be ≥ 1, got ${max}` });
    }
    this.max = max;
    this.hash = keyedHash(db, "fact_rejections");
    this.convertTextRows();
  }

  /** Records that the user removed this fact (again: it becomes the newest); drops the oldest over the bound. */
  reject(fact: FactNames, now: number): void {
    this.insert(folded(fact), now, 0);
    this.trim();
  }

  /** Whether an automatic commit must skip this fact; a skip is counted on the rejection. */
  blocks(fact: FactNames): boolean {
    return (
      cachedStatement(this.db, "UPDATE fact_rejections SET skips = skips + 1 WHERE fact_key = ?").run(
        this.factKey(folded(fact)),
      ).changes > 0
    );
  }

  /** Someone stated the fact on purpose: it is no longer rejected. True when it was. */
  lift(fact: FactNames): boolean {
    return (
      cachedStatement(this.db, "DELETE FROM fact_rejections WHERE fact_key = ?").run(this.factKey(folded(fact)))
        .changes > 0
    );
  }

  /**
   * Forgetting: drops the rejections mentioning every term (lower-case), i.e. one of whose names is the term
   * or holds all of its words. Returns how many.
   */
  forgetMentioning(terms: readonly string[]): number {
    if (terms.length === 0) return 0;
    const where = terms.map((t) => this.mentions(t));
    return this.db
      .prepare(`DELETE FROM fact_rejections WHERE ${where.map((w) => w.sql).join(" AND ")}`)
      .run(...where.flatMap((w) => w.params)).changes;
  }

  /** How many rejections forgetMentioning would drop. */
  countMentioning(terms: readonly string[]): number {
    if (terms.length === 0) return 0;
    const where = terms.map((t) => this.mentions(t));
    return this.db
      .prepare(`SELECT COUNT(*) FROM fact_rejections WHERE ${where.map((w) => w.sql).join(" AND ")}`)
      .pluck()
      .get(...where.flatMap((w) => w.params)) as number;
  }

  /** An entity deleted with everything about it: drops the rejections naming it. */
  forgetEntity(name: string): number {
    return cachedStatement(this.db, "DELETE FROM fact_rejections WHERE ' ' || name_keys || ' ' LIKE ?").run(
      this.keyPattern(normalizeName(name).toLowerCase()),
    ).changes;
  }

  stats(): RejectionStats {
    const row = cachedStatement<[], { facts: number; skips: number | null }>(
      this.db,
      "SELECT COUNT(*) AS facts, SUM(skips) AS skips FROM fact_rejections",
    ).get();
    return { facts: row?.facts ?? 0, skips: row?.skips ?? 0 };
  }

  private insert(names: [string, string, string], rejectedAt: number, skips: number): void {
    const keys = new Set<string>();
    for (const name of names) {
      keys.add(this.nameKey(name));
      for (const word of tokenize(name)) keys.add(this.nameKey(word));
    }
    cachedStatement(
      this.db,
      `INSERT OR REPLACE INTO fact_rejections (fact_key, name_keys, rejected_at, skips) VALUES (?, ?, ?, ?)`,
    ).run(this.factKey(names), [...keys].join(" "), rejectedAt, skips);
  }

  /** SQL true when the rejection has the term as a name, or every word of it. */
  private mentions(term: string): { sql: string; params: string[] } {
    const words = [...new Set(tokenize(term))];
    const whole = this.keyPattern(normalizeName(term).toLowerCase());
    if (words.length === 0) return { sql: "' ' || name_keys || ' ' LIKE ?", params: [whole] };
    const all = words.map(() => "' ' || name_keys || ' ' LIKE ?").join(" AND ");
    return {
      sql: `(' ' || name_keys || ' ' LIKE ? OR (${all}))`,
      params: [whole, ...words.map((w) => this.keyPattern(w))],
    };
  }

  private factKey(names: [string, string, string]): string {
    return this.hash("fact", JSON.stringify(names));
  }

  private nameKey(name: string): string {
    return this.hash("name", name);
  }

  /** A LIKE pattern for one key among the space-separated ones (keys are hex: nothing to escape). */
  private keyPattern(name: string): string {
    return `% ${this.nameKey(name)} %`;
  }

  /** Rejections kept as text by an older HomeAgent become hashes; the text table is then dropped. */
  private convertTextRows(): void {
    if (!hasTable(this.db, "fact_rejections_text")) return;
    this.db.transaction(() => {
      const rows = this.db
        .prepare("SELECT subject, relation, object, rejected_at, skips FROM fact_rejections_text ORDER BY id")
        .all() as TextRow[];
      for (const r of rows) this.insert(folded(r), r.rejected_at, r.skips);
      this.db.exec("DROP TABLE fact_rejections_text");
    })();
  }

  private trim(): void {
    const cut = cachedStatement(this.db, "SELECT id FROM fact_rejections ORDER BY id DESC LIMIT 1 OFFSET ?")
      .pluck()
      .get(this.max) as number | undefined;
    if (cut === undefined) return;
    const dropped = cachedStatement(this.db, "DELETE FROM fact_rejections WHERE id <= ?").run(cut).changes;
    this.opts.warn?.(
      `memory: more than ${this.max} facts removed by the user are remembered as rejected; the ${dropped} oldest were dropped, so distillation may store them again`,
    );
  }
}
