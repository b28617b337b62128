/**
 * What approvals leave behind, in two tables of memory.db: the "always" answers the user gave (bound to a
 * hash of exactly what was approved, revocable) and a record of every question and how it ended. Both hold
 * the question's text, so both are bounded and forgettable (forget-registry.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import { type ApprovalRecord, forgetMatcher, type RememberedApproval } from "@homeagent/sdk";
import type Database from "better-sqlite3";
import { cachedStatement } from "../util/statements.js";

/** Records kept, the newest; "always" answers kept (each one is a standing permission the user can see). */
export const APPROVAL_LOG_MAX = 1_000;
export const REMEMBERED_MAX = 500;

interface RememberedRow {
  id: string;
  plugin: string;
  question: string;
  created_at: number;
  last_used_at: number;
  uses: number;
}

interface LogRow {
  id: string;
  plugin: string;
  channel: string;
  question: string;
  asked_at: number;
  outcome: string;
  answered_by: string | null;
  answered_at: number | null;
}

/** The hash an "always" is bound to: the asking plugin and exactly what it asked about. */
export function subjectHash(plugin: string, subject: string): string {
  return createHash("sha256").update(plugin).update("\u0000").update(subject).digest("hex");
}

export function newApprovalId(): string {
  return `apr_${randomBytes(9).toString("base64url")}`;
}

export class ApprovalStore {
  constructor(
    private readonly db: Database.Database,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS approvals_remembered (
      id TEXT PRIMARY KEY,
      plugin TEXT NOT NULL,
      subject_hash TEXT NOT NULL UNIQUE,
      question TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      last_used_at INTEGER NOT NULL,
      uses INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS approvals_log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL,
      plugin TEXT NOT NULL,
      channel TEXT NOT NULL,
      question TEXT NOT NULL,
      asked_at INTEGER NOT NULL,
      outcome TEXT NOT NULL,
      answered_by TEXT,
      answered_at INTEGER
    );`);
  }

  /** The remembered "always" for this hash, counted as used; undefined when there is none. */
  useRemembered(hash: string): RememberedApproval | undefined {
    const row = cachedStatement(this.db, "SELECT * FROM approvals_remembered WHERE subject_hash = ?").get(hash) as
      | RememberedRow
      | undefined;
    if (!row) return undefined;
    cachedStatement(this.db, "UPDATE approvals_remembered SET uses = uses + 1, last_used_at = ? WHERE id = ?").run(
      this.now(),
      row.id,
    );
    return toRemembered(row);
  }

  remember(plugin: string, hash: string, question: string): void {
    const t = this.now();
    cachedStatement(
      this.db,
      `INSERT INTO approvals_remembered (id, plugin, subject_hash, question, created_at, last_used_at, uses)
       VALUES (?, ?, ?, ?, ?, ?, 1) ON CONFLICT (subject_hash) DO NOTHING`,
    ).run(newApprovalId(), plugin, hash, question, t, t);
    cachedStatement(
      this.db,
      "DELETE FROM approvals_remembered WHERE id IN (SELECT id FROM approvals_remembered ORDER BY last_used_at DESC LIMIT -1 OFFSET ?)",
    ).run(REMEMBERED_MAX);
  }

  remembered(): RememberedApproval[] {
    const rows = cachedStatement(this.db, "SELECT * FROM approvals_remembered ORDER BY created_at DESC").all();
    return (rows as RememberedRow[]).map(toRemembered);
  }

  revoke(id: string): boolean {
    return cachedStatement(this.db, "DELETE FROM approvals_remembered WHERE id = ?").run(id).changes > 0;
  }

  record(r: ApprovalRecord): void {
    cachedStatement(
      this.db,
      `INSERT INTO approvals_log (id, plugin, channel, question, asked_at, outcome, answered_by, answered_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(r.id, r.plugin, r.channel, r.question, r.askedAt, r.outcome, r.by ?? null, r.answeredAt ?? null);
    cachedStatement(
      this.db,
      "DELETE FROM approvals_log WHERE seq <= (SELECT seq FROM approvals_log ORDER BY seq DESC LIMIT 1 OFFSET ?)",
    ).run(APPROVAL_LOG_MAX);
  }

  log(limit = 100): ApprovalRecord[] {
    const n = Number.isInteger(limit) && limit > 0 ? Math.min(limit, APPROVAL_LOG_MAX) : 100;
    const rows = cachedStatement(this.db, "SELECT * FROM approvals_log ORDER BY seq DESC LIMIT ?").all(n) as LogRow[];
    return rows.map((r) => ({
      id: r.id,
      plugin: r.plugin,
      channel: r.channel,
      question: r.question,
      askedAt: r.asked_at,
      outcome: r.outcome,
      ...(r.answered_by ? { by: r.answered_by } : {}),
      ...(r.answered_at ? { answeredAt: r.answered_at } : {}),
    }));
  }

  /** Records and remembered answers whose question mentions every term; removed when `remove`. */
  forget(terms: readonly string[], remove: boolean): number {
    const matches = forgetMatcher(terms);
    let n = 0;
    for (const [table, key] of [
      ["approvals_log", "seq"],
      ["approvals_remembered", "id"],
    ] as const) {
      const rows = cachedStatement(this.db, `SELECT ${key} AS k, question FROM ${table}`).all() as Array<{
        k: string | number;
        question: string;
      }>;
      const hits = rows.filter((r) => matches(r.question));
      n += hits.length;
      if (!remove) continue;
      const del = cachedStatement(this.db, `DELETE FROM ${table} WHERE ${key} = ?`);
      this.db.transaction(() => {
        for (const r of hits) del.run(r.k);
      })();
    }
    return n;
  }
}

function toRemembered(r: RememberedRow): RememberedApproval {
  return {
    id: r.id,
    plugin: r.plugin,
    question: r.question,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    uses: r.uses,
  };
}
