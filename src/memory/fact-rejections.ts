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
 * script. The list is bounded (oldest dropped, with a warning). Forgetting removes the rejections that
 * mention what is forgotten: a name the user wants gone must not linger here either.
 */
import { GraphError, normalizeName } from "./graph-rules.js";
import { cachedStatement, containsAll } from "./statements.js";
import type { DB } from "./store.js";

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

/** The three names as the graph stores them (normalised, original case). */
function normalized(f: FactNames): FactNames {
  return { subject: normalizeName(f.subject), relation: normalizeName(f.relation), object: normalizeName(f.object) };
}

/** One key per fact however its names are cased or written (full-width, extra spaces). */
function rejectionKey(f: FactNames): string {
  const n = normalized(f);
  return JSON.stringify([n.subject, n.relation, n.object].map((x) => x.toLowerCase()));
}

export class FactRejections {
  private readonly max: number;

  constructor(
    private readonly db: DB,
    private readonly opts: RejectionOptions = {},
  ) {
    const max = opts.max ?? MAX_REJECTIONS;
    if (!Number.isSafeInteger(max) || max < 1) {
      throw new GraphError({ code: "graph_bad_argument", message: `the rejection bound must be ≥ 1, got ${max}` });
    }
    this.max = max;
  }

  /** Records that the user removed this fact (again: it becomes the newest); drops the oldest over the bound. */
  reject(fact: FactNames, now: number): void {
    const n = normalized(fact);
    cachedStatement(
      this.db,
      `INSERT OR REPLACE INTO fact_rejections (fact_key, subject, relation, object, rejected_at, skips)
       VALUES (?, ?, ?, ?, ?, 0)`,
    ).run(rejectionKey(n), n.subject, n.relation, n.object, now);
    this.trim();
  }

  /** Whether an automatic commit must skip this fact; a skip is counted on the rejection. */
  blocks(fact: FactNames): boolean {
    return (
      cachedStatement(this.db, "UPDATE fact_rejections SET skips = skips + 1 WHERE fact_key = ?").run(
        rejectionKey(fact),
      ).changes > 0
    );
  }

  /** Someone stated the fact on purpose: it is no longer rejected. True when it was. */
  lift(fact: FactNames): boolean {
    return (
      cachedStatement(this.db, "DELETE FROM fact_rejections WHERE fact_key = ?").run(rejectionKey(fact)).changes > 0
    );
  }

  /** Forgetting: drops the rejections whose names mention every term (lower-case). Returns how many. */
  forgetMentioning(terms: readonly string[]): number {
    if (terms.length === 0) return 0;
    const where = containsAll(this.db, "subject || ' ' || relation || ' ' || object", terms);
    return this.db.prepare(`DELETE FROM fact_rejections WHERE ${where.sql}`).run(...where.params).changes;
  }

  /** An entity deleted with everything about it: drops the rejections naming it as subject or object. */
  forgetEntity(name: string): number {
    const key = normalizeName(name).toLowerCase();
    return cachedStatement(
      this.db,
      "DELETE FROM fact_rejections WHERE json_extract(fact_key, '$[0]') = @key OR json_extract(fact_key, '$[2]') = @key",
    ).run({ key }).changes;
  }

  stats(): RejectionStats {
    const row = cachedStatement<[], { facts: number; skips: number | null }>(
      this.db,
      "SELECT COUNT(*) AS facts, SUM(skips) AS skips FROM fact_rejections",
    ).get();
    return { facts: row?.facts ?? 0, skips: row?.skips ?? 0 };
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
