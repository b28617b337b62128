/**
 * The document layer's two tables, documents and doc_turns, in plain SQL: a document, its turns, pages,
 * neighbours in time, cold documents, the forget scan, and a new document row with a fresh id. Nothing
 * here touches the search index: DocStore writes rows and search items together, and reads through here.
 */
import type { Statement } from "better-sqlite3";
import { cachedStatement } from "../../util/statements.js";
import { containsAll } from "../statements.js";
import type { DB } from "../store.js";
import {
  checkRange,
  DOC_LIMITS,
  type Doc,
  type DocRow,
  type DocSource,
  type DocTurn,
  TURN_COLUMNS,
  toDoc,
} from "./schema.js";

const HOUR = 3_600_000;

/**
 * A turn's nearest neighbours in time, through the (ts, id) index: one statement per step. Measured in the
 * soak: a single statement over all hits (json_each, correlated list subqueries) cost ≈ 13 µs a hit, this
 * pair of scalar subqueries ≈ 2 µs.
 */
const AROUND = `SELECT
  (SELECT id FROM doc_turns WHERE (ts, id) < (h.ts, h.id) ORDER BY ts DESC, id DESC LIMIT 1) AS prev,
  (SELECT id FROM doc_turns WHERE (ts, id) > (h.ts, h.id) ORDER BY ts, id LIMIT 1) AS next
  FROM doc_turns h WHERE h.id = ?`;
const TURNS_BY_ID = `SELECT ${TURN_COLUMNS} FROM doc_turns WHERE id IN (SELECT value FROM json_each(?))`;

export class DocRows {
  private lastIdMs = 0;
  private idSeq = 0;

  constructor(
    private readonly db: DB,
    private readonly now: () => number,
  ) {}

  get(id: string): Doc | null {
    const row = this.sql("SELECT * FROM documents WHERE id = ?").get(id) as DocRow | undefined;
    return row ? toDoc(row) : null;
  }

  byHash(hash: string): Doc | null {
    const row = this.sql("SELECT * FROM documents WHERE content_hash = ?").get(hash) as DocRow | undefined;
    return row ? toDoc(row) : null;
  }

  /** The archived turns of one document, in time order. */
  turns(docId: string): DocTurn[] {
    return this.sql(`SELECT ${TURN_COLUMNS} FROM doc_turns WHERE doc_id = ? ORDER BY ts, id`).all(docId) as DocTurn[];
  }

  turnById(id: number): DocTurn | null {
    return (this.sql(`SELECT ${TURN_COLUMNS} FROM doc_turns WHERE id = ?`).get(id) as DocTurn | undefined) ?? null;
  }

  /**
   * Each turn of `ids` with its neighbours in time across all documents (a question's evidence often sits
   * in the turn just before or after the best match): turn id → that run in time order; a turn that is gone
   * is absent. The runs' rows are read in one statement, each row once however many runs it is in.
   */
  turnsAroundMany(ids: readonly number[], before: number, after: number): Map<number, DocTurn[]> {
    checkRange("before", before, 0, DOC_LIMITS.neighbours);
    checkRange("after", after, 0, DOC_LIMITS.neighbours);
    checkRange("ids", ids.length, 0, DOC_LIMITS.turnsPerLookUp);
    const around = this.sql(AROUND);
    const step = (id: number) => around.get(id) as { prev: number | null; next: number | null } | undefined;
    const runIds = new Map<number, number[]>();
    for (const hit of ids) {
      const first = step(hit);
      if (!first) continue;
      const run = [hit];
      for (let i = 0, at = first; i < before && at.prev !== null; i++) {
        run.unshift(at.prev);
        if (i + 1 < before) at = step(at.prev) ?? { prev: null, next: null };
      }
      for (let i = 0, at = first; i < after && at.next !== null; i++) {
        run.push(at.next);
        if (i + 1 < after) at = step(at.next) ?? { prev: null, next: null };
      }
      runIds.set(hit, run);
    }
    const wanted = new Set([...runIds.values()].flat());
    const rows = new Map<number, DocTurn>();
    if (wanted.size > 0) {
      for (const t of this.sql(TURNS_BY_ID).all(JSON.stringify([...wanted])) as DocTurn[]) rows.set(t.id, t);
    }
    const runs = new Map<number, DocTurn[]>();
    for (const [hit, run] of runIds) {
      runs.set(
        hit,
        run.map((id) => rows.get(id)).filter((t): t is DocTurn => t !== undefined),
      );
    }
    return runs;
  }

  /** Newest first (by the time they record). */
  list(opts: { offset?: number; limit?: number; source?: DocSource } = {}): Doc[] {
    const offset = opts.offset ?? 0;
    const limit = opts.limit ?? 50;
    checkRange("offset", offset, 0, Number.MAX_SAFE_INTEGER);
    checkRange("limit", limit, 1, DOC_LIMITS.listLimit);
    const where = opts.source ? "WHERE source = ?" : "";
    const rows = this.sql(`SELECT * FROM documents ${where} ORDER BY ts_end DESC, id DESC LIMIT ? OFFSET ?`).all(
      ...(opts.source ? [opts.source] : []),
      limit,
      offset,
    ) as DocRow[];
    return rows.map(toDoc);
  }

  count(source?: DocSource): number {
    const sql = source ? "SELECT COUNT(*) FROM documents WHERE source = ?" : "SELECT COUNT(*) FROM documents";
    return this.sql(sql)
      .pluck()
      .get(...(source ? [source] : [])) as number;
  }

  /**
   * Documents nobody needed lately, for the archive loop to distill into the graph: not distilled yet,
   * at most `maxAccess` accesses, and neither stored nor read within `ageMs` before `now`. Oldest first.
   */
  findCold(now: number, ageMs = 72 * HOUR, maxAccess = 2, limit = 50): Doc[] {
    checkRange("limit", limit, 1, DOC_LIMITS.listLimit);
    const rows = this.sql(
      `SELECT * FROM documents
         WHERE distilled_at IS NULL AND access_count <= ? AND COALESCE(last_access, created_at) <= ?
         ORDER BY created_at, id LIMIT ?`,
    ).all(maxAccess, now - ageMs, limit) as DocRow[];
    return rows.map(toDoc);
  }

  /**
   * Archived turns, and manual documents (as one pseudo-turn with id 0), whose text contains every term
   * as forgetting matches (containsAll: forgetMatcher of the SDK). A turn's search item also holds its tool results, which doc_turns does not keep, so those items are matched
   * too. Forget is rare and exact, so this is a scan, not an index look-up.
   */
  mentioning(terms: readonly string[]): DocTurn[] {
    const turnText = containsAll(this.db, "input || ' ' || response", terms);
    const itemText = containsAll(this.db, "text", terms);
    const docText = containsAll(
      this.db,
      "content || ' ' || summary || ' ' || tags || ' ' || entities || ' ' || meta",
      terms,
    );
    const turns = this.db
      .prepare(
        `SELECT ${TURN_COLUMNS} FROM doc_turns WHERE ${turnText.sql}
           OR id IN (SELECT CAST(substr(id, 6) AS INTEGER) FROM search_items WHERE kind = 'turn' AND ${itemText.sql})`,
      )
      .all(...turnText.params, ...itemText.params) as DocTurn[];
    const docs = this.db
      .prepare(
        `SELECT * FROM documents WHERE NOT EXISTS (SELECT 1 FROM doc_turns t WHERE t.doc_id = documents.id) AND ${docText.sql}`,
      )
      .all(...docText.params) as DocRow[];
    return [
      ...turns,
      ...docs.map((r) => ({
        id: 0,
        docId: r.id,
        ts: r.ts_start,
        source: r.source,
        channel: "document",
        input: r.content,
        response: "",
      })),
    ];
  }

  /** Inserts a document row (no search items: the caller writes those); returns its new id. */
  insertDoc(
    d: Pick<
      Doc,
      "summary" | "content" | "tags" | "entities" | "source" | "meta" | "contentHash" | "tsStart" | "tsEnd"
    > & {
      chunks: number;
    },
  ): string {
    const id = this.newId();
    const at = this.now();
    this.sql(
      `INSERT INTO documents (id, summary, content, tags, entities, source, meta, content_hash, created_at,
           updated_at, ts_start, ts_end, chunks)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      d.summary,
      d.content,
      JSON.stringify(d.tags),
      JSON.stringify(d.entities),
      d.source,
      JSON.stringify(d.meta),
      d.contentHash,
      at,
      at,
      d.tsStart,
      d.tsEnd,
      d.chunks,
    );
    return id;
  }

  /** `doc_<ms>_<n>`: unique within a millisecond, and across restarts by checking the table. */
  private newId(): string {
    const ms = this.now();
    if (ms !== this.lastIdMs) {
      this.lastIdMs = ms;
      this.idSeq = 0;
    }
    const exists = this.sql("SELECT 1 FROM documents WHERE id = ?").pluck();
    let id: string;
    do id = `doc_${ms}_${this.idSeq++}`;
    while (exists.get(id) !== undefined);
    return id;
  }

  private sql(text: string): Statement {
    return cachedStatement(this.db, text);
  }
}
