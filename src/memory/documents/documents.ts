/**
 * DocStore: the document layer. Context pruned out of the window becomes one document per prune batch,
 * keeping the original's summary, tags and entities AND the verbatim turns with their original
 * timestamps (each turn searchable as `turn:<id>`), so the words the user said can come back. Manual
 * documents (`doc_commit`) are searchable as `doc:<id>` (long ones in pieces). `query` only reads (and
 * counts the access); `consume` takes documents out for the caller to put back into the context.
 */
import type { Statement } from "better-sqlite3";
import type { ContextEvent } from "../../kernel/types.js";
import type { IndexWriter, ItemInput, PreparedQuery, SearchIndex } from "../../retrieval/search.js";
import { turnLine, vectorText } from "../event-text.js";
import { cachedStatement, containsAll } from "../statements.js";
import { type DB, migrateTables } from "../store.js";
import {
  type CommitInput,
  checkCommit,
  checkRange,
  checkTopK,
  DOC_LIMITS,
  DOC_MIGRATIONS,
  type Doc,
  type DocHit,
  type DocRow,
  type DocSource,
  type DocTurn,
  type DocWithTurns,
  TURN_COLUMNS,
  toDoc,
} from "./schema.js";
import {
  archiveSummary,
  CHUNK_CHARS,
  chunks,
  contentHash,
  entitiesOf,
  leadSummary,
  MAX_TAGS,
  topTerms,
} from "./text.js";

export {
  type CommitInput,
  DOC_LIMITS,
  DOC_SOURCES,
  type Doc,
  type DocHit,
  type DocSource,
  DocStoreError,
  type DocTurn,
  type DocWithTurns,
} from "./schema.js";

const HOUR = 3_600_000;

export class DocStore {
  private readonly now: () => number;
  private lastIdMs = 0;
  private idSeq = 0;

  constructor(
    private readonly db: DB,
    private readonly index: SearchIndex,
    opts: { now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
    migrateTables(db, "documents", DOC_MIGRATIONS);
  }

  /**
   * Archives pruned context as ONE document (each event a turn at its original timestamp) and indexes its
   * turns. Synchronous: pass the writer of the caller's `index.write` so the archive commits or rolls
   * back with the removal from the window. NoMemory events are never archived; null when none is left.
   * The same content archived twice yields the existing document.
   */
  archive(events: readonly ContextEvent[], source: DocSource = "context_archived", w?: IndexWriter): Doc | null {
    const kept = events.filter((e) => !e.noMemory).sort((a, b) => a.ts - b.ts || a.id - b.id);
    if (kept.length === 0) return null;
    const run = (wr: IndexWriter): Doc => {
      const content = kept.map(turnLine).join("\n\n");
      const hash = contentHash(content);
      const existing = this.byHash(hash);
      if (existing) return existing;
      const words = kept.map((e) => `${e.cleanInput ?? e.input}\n${e.response}`).join("\n");
      const id = this.insertDoc({
        summary: archiveSummary(kept, words),
        content,
        tags: topTerms(words, MAX_TAGS),
        entities: entitiesOf(words),
        source,
        meta: { is_archived_context: true, turns: kept.length },
        hash,
        tsStart: kept[0].ts,
        tsEnd: kept[kept.length - 1].ts,
        chunks: 0,
      });
      const insertTurn = this.sql(
        "INSERT INTO doc_turns (doc_id, ts, source, channel, input, response) VALUES (?, ?, ?, ?, ?, ?)",
      );
      const items: ItemInput[] = [];
      for (const e of kept) {
        const turnId = Number(insertTurn.run(id, e.ts, e.source, e.channel, e.input, e.response).lastInsertRowid);
        const text = vectorText(e);
        if (text)
          items.push({ id: `turn:${turnId}`, kind: "turn", text, ts: e.ts, meta: { docId: id, source: e.source } });
      }
      if (items.length > 0) wr.upsert(items);
      return this.get(id)!;
    };
    return w ? run(w) : this.index.write(run);
  }

  /** Stores a manual document (verbatim) and indexes it, in pieces of ≤ ~1,000 characters when long. */
  async commit(input: CommitInput): Promise<Doc> {
    const content = input.content;
    const source = input.source ?? "manual";
    const ts = input.ts ?? this.now();
    checkCommit(input, content, source, ts);
    return this.index.write((w) => {
      const hash = contentHash(content);
      const existing = this.byHash(hash);
      if (existing) return existing;
      const pieces = chunks(content, CHUNK_CHARS);
      const id = this.insertDoc({
        summary: input.summary?.trim() || leadSummary(content),
        content,
        tags: input.tags?.map((t) => t.trim()) ?? topTerms(content, MAX_TAGS),
        entities: entitiesOf(content),
        source,
        meta: {},
        hash,
        tsStart: ts,
        tsEnd: ts,
        chunks: pieces.length,
      });
      w.upsert(
        pieces.map((text, n) => ({
          id: docItemId(id, pieces.length, n),
          kind: "doc",
          text,
          ts,
          meta: { docId: id, source, ...(pieces.length > 1 ? { chunk: n } : {}) },
        })),
      );
      return this.get(id)!;
    });
  }

  /** The documents that best match `q`, best first; counts one access for each. */
  async query(q: string | PreparedQuery, topK: number): Promise<DocHit[]> {
    const ranked = await this.rank(q, topK);
    const at = this.now();
    const touch = this.sql(
      "UPDATE documents SET access_count = access_count + 1, last_access = ? WHERE id = ? RETURNING *",
    );
    return this.db.transaction(() =>
      ranked.flatMap(({ docId, score, turnIds }) => {
        const row = touch.get(at, docId) as DocRow | undefined;
        return row ? [{ doc: toDoc(row), score, turnIds }] : [];
      }),
    )();
  }

  /** The ids of the best-matching documents, without touching them: the first half of `consume`. */
  async rank(
    q: string | PreparedQuery,
    topK: number,
  ): Promise<Array<{ docId: string; score: number; turnIds: number[] }>> {
    checkTopK(topK);
    const hits = await this.index.search(q, {
      k: Math.min(200, Math.max(20, topK * 5)),
      filter: { kind: ["turn", "doc"] },
    });
    const byDoc = new Map<string, { docId: string; score: number; turnIds: number[] }>();
    for (const h of hits) {
      const docId = h.meta.docId;
      if (typeof docId !== "string") continue;
      let entry = byDoc.get(docId);
      if (!entry) {
        if (byDoc.size >= topK) continue;
        entry = { docId, score: h.score, turnIds: [] };
        byDoc.set(docId, entry);
      }
      if (h.kind === "turn") entry.turnIds.push(Number(h.id.slice("turn:".length)));
    }
    return [...byDoc.values()];
  }

  /** Removes the best-matching documents and their items and returns them with their turns. */
  async consume(q: string | PreparedQuery, topK: number): Promise<DocWithTurns[]> {
    const ranked = await this.rank(q, topK);
    return this.take(ranked.map((r) => r.docId));
  }

  /**
   * Deletes documents (turns and search items with them) and returns what they were, in the order asked;
   * ids not found are skipped. Pass the caller's writer to make it part of a larger transaction.
   */
  take(ids: readonly string[], w?: IndexWriter): DocWithTurns[] {
    const run = (wr: IndexWriter) =>
      ids.flatMap((id) => {
        const doc = this.get(id);
        if (!doc) return [];
        const turns = this.turns(id);
        wr.remove(this.itemIds(id, turns));
        this.sql("DELETE FROM doc_turns WHERE doc_id = ?").run(id);
        this.sql("DELETE FROM documents WHERE id = ?").run(id);
        return [{ ...doc, turns }];
      });
    return w ? run(w) : this.index.write(run);
  }

  remove(ids: readonly string[]): number {
    return this.take(ids).length;
  }

  get(id: string): Doc | null {
    const row = this.sql("SELECT * FROM documents WHERE id = ?").get(id) as DocRow | undefined;
    return row ? toDoc(row) : null;
  }

  /** The archived turns of one document, in time order. */
  turns(docId: string): DocTurn[] {
    return this.sql(`SELECT ${TURN_COLUMNS} FROM doc_turns WHERE doc_id = ? ORDER BY ts, id`).all(docId) as DocTurn[];
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

  turnById(id: number): DocTurn | null {
    return (this.sql(`SELECT ${TURN_COLUMNS} FROM doc_turns WHERE id = ?`).get(id) as DocTurn | undefined) ?? null;
  }

  /**
   * The turn and its neighbours in time across all documents (a question's evidence often sits in the
   * turn just before or after the best match), in time order; [] if the turn is gone.
   */
  turnsAround(turnId: number, before: number, after: number): DocTurn[] {
    checkRange("before", before, 0, DOC_LIMITS.neighbours);
    checkRange("after", after, 0, DOC_LIMITS.neighbours);
    const turn = this.turnById(turnId);
    if (!turn) return [];
    const earlier = this.sql(
      `SELECT ${TURN_COLUMNS} FROM doc_turns WHERE (ts, id) < (?, ?) ORDER BY ts DESC, id DESC LIMIT ?`,
    ).all(turn.ts, turn.id, before) as DocTurn[];
    const later = this.sql(`SELECT ${TURN_COLUMNS} FROM doc_turns WHERE (ts, id) > (?, ?) ORDER BY ts, id LIMIT ?`).all(
      turn.ts,
      turn.id,
      after,
    ) as DocTurn[];
    return [...earlier.reverse(), turn, ...later];
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
   * (lower-case terms, matched case-insensitively in every script). A turn's
   * search item also holds its tool results, which doc_turns does not keep, so those items are matched
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

  /** Search items that hold these turns (a manual document's pseudo-turn: each of its pieces). */
  itemsOf(hits: readonly DocTurn[]): number {
    return hits.reduce((n, t) => n + (t.id === 0 ? this.itemIds(t.docId, []).length : 1), 0);
  }

  /**
   * Removes the given turns (and manual documents): each affected document is taken out and what remains
   * of it is archived again, so its summary, tags and verbatim text no longer carry what was forgotten.
   */
  forget(hits: readonly DocTurn[]): { documents: number; turns: number; items: number } {
    const gone = new Set(hits.map((t) => t.id));
    const docIds = [...new Set(hits.map((t) => t.docId))];
    const items = this.itemsOf(hits);
    return this.index.write((w) => {
      let turns = 0;
      for (const doc of this.take(docIds, w)) {
        const keep = doc.turns.filter((t) => !gone.has(t.id));
        turns += doc.turns.length - keep.length;
        if (keep.length > 0) this.archive(keep.map(turnEvent), doc.source, w);
      }
      return { documents: docIds.length, turns, items };
    });
  }

  /** Records that the document's facts are in the graph; its verbatim text stays searchable. */
  markDistilled(id: string, at: number): void {
    this.sql("UPDATE documents SET distilled_at = ?, updated_at = ? WHERE id = ?").run(at, at, id);
  }

  private sql(text: string): Statement {
    return cachedStatement(this.db, text);
  }

  private byHash(hash: string): Doc | null {
    const row = this.sql("SELECT * FROM documents WHERE content_hash = ?").get(hash) as DocRow | undefined;
    return row ? toDoc(row) : null;
  }

  private insertDoc(d: {
    summary: string;
    content: string;
    tags: string[];
    entities: string[];
    source: DocSource;
    meta: Record<string, unknown>;
    hash: string;
    tsStart: number;
    tsEnd: number;
    chunks: number;
  }): string {
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
      d.hash,
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

  private itemIds(docId: string, turns: readonly DocTurn[]): string[] {
    const n = this.sql("SELECT chunks FROM documents WHERE id = ?").pluck().get(docId) as number;
    const pieces = Array.from({ length: n }, (_, i) => docItemId(docId, n, i));
    return [...turns.map((t) => `turn:${t.id}`), ...pieces];
  }
}

function docItemId(docId: string, pieces: number, n: number): string {
  return pieces > 1 ? `doc:${docId}#${n}` : `doc:${docId}`;
}

/** An archived turn as the context event it once was, for archiving what remains of a document. */
function turnEvent(t: DocTurn): ContextEvent {
  return {
    id: t.id,
    ts: t.ts,
    kind: "user",
    source: t.source,
    channel: t.channel,
    input: t.input,
    response: t.response,
    toolsUsed: [],
    toolResults: [],
    noMemory: false,
  };
}
