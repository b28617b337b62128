/**
 * DocStore: the document layer. Context pruned out of the window becomes one document per prune batch,
 * keeping the original's summary, tags and entities AND the verbatim turns with their original
 * timestamps (each turn searchable as `turn:<id>`), so the words the user said can come back. Manual
 * documents (`doc_commit`) are searchable as `doc:<id>` (long ones in pieces). `query` only reads (and
 * counts the access); `consume` takes documents out for the caller to put back into the context. The
 * tables' own SQL is in rows.ts; this class keeps them and the search index in step.
 */
import type { Statement } from "better-sqlite3";
import type { ContextEvent } from "../../kernel/types.js";
import type { IndexWriter, ItemInput, PreparedQuery, SearchIndex } from "../../retrieval/search.js";
import { cachedStatement } from "../../util/statements.js";
import { turnLine, vectorText } from "../event-text.js";
import { type DB, migrateTables } from "../store.js";
import { DocRows } from "./rows.js";
import {
  type CommitInput,
  checkCommit,
  checkTopK,
  DOC_MIGRATIONS,
  type Doc,
  type DocHit,
  type DocRow,
  type DocSource,
  type DocTurn,
  type DocWithTurns,
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

export class DocStore {
  private readonly now: () => number;
  private readonly rows: DocRows;

  constructor(
    private readonly db: DB,
    private readonly index: SearchIndex,
    opts: { now?: () => number } = {},
  ) {
    this.now = opts.now ?? Date.now;
    migrateTables(db, "documents", DOC_MIGRATIONS);
    this.rows = new DocRows(db, this.now);
  }

  /**
   * Archives pruned context as ONE document (each event a turn at its original timestamp) and indexes its
   * turns. Synchronous: pass the writer of the caller's `index.write` so the archive commits or rolls
   * back with the removal from the window. NoMemory events are never archived; null when none is left.
   * The same content archived twice yields the existing document. `replacing` names the search item each
   * event had (its window item): a turn item with the same text takes that item's place, keeping its terms
   * and vector.
   */
  archive(
    events: readonly ContextEvent[],
    source: DocSource = "context_archived",
    w?: IndexWriter,
    replacing?: (e: ContextEvent) => string,
  ): Doc | null {
    const kept = events.filter((e) => !e.noMemory).sort((a, b) => a.ts - b.ts || a.id - b.id);
    if (kept.length === 0) return null;
    const run = (wr: IndexWriter): Doc => {
      const content = kept.map(turnLine).join("\n\n");
      const hash = contentHash(content);
      const existing = this.rows.byHash(hash);
      if (existing) return existing;
      const words = kept.map((e) => `${e.cleanInput ?? e.input}\n${e.response}`).join("\n");
      const id = this.rows.insertDoc({
        summary: archiveSummary(kept, words),
        content,
        tags: topTerms(words, MAX_TAGS),
        entities: entitiesOf(words),
        source,
        meta: { is_archived_context: true, turns: kept.length },
        contentHash: hash,
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
        if (text) {
          const meta = { docId: id, source: e.source };
          items.push({ id: `turn:${turnId}`, kind: "turn", text, ts: e.ts, meta, replaces: replacing?.(e) });
        }
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
      const existing = this.rows.byHash(hash);
      if (existing) return existing;
      const pieces = chunks(content, CHUNK_CHARS);
      const id = this.rows.insertDoc({
        summary: input.summary?.trim() || leadSummary(content),
        content,
        tags: input.tags?.map((t) => t.trim()) ?? topTerms(content, MAX_TAGS),
        entities: entitiesOf(content),
        source,
        meta: {},
        contentHash: hash,
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
    return this.rows.get(id);
  }

  /** The archived turns of one document, in time order. */
  turns(docId: string): DocTurn[] {
    return this.rows.turns(docId);
  }

  /** Newest first (by the time they record). */
  list(opts: { offset?: number; limit?: number; source?: DocSource } = {}): Doc[] {
    return this.rows.list(opts);
  }

  count(source?: DocSource): number {
    return this.rows.count(source);
  }

  turnById(id: number): DocTurn | null {
    return this.rows.turnById(id);
  }

  /** Each turn of `ids` with its neighbours in time across all documents: turn id → that run, in time order. */
  turnsAroundMany(ids: readonly number[], before: number, after: number): Map<number, DocTurn[]> {
    return this.rows.turnsAroundMany(ids, before, after);
  }

  /** Documents nobody needed lately, for the archive loop to distill into the graph (oldest first). */
  findCold(now: number, ageMs?: number, maxAccess?: number, limit?: number): Doc[] {
    return this.rows.findCold(now, ageMs, maxAccess, limit);
  }

  /** Archived turns, and manual documents (as one pseudo-turn with id 0), whose text contains every term. */
  mentioning(terms: readonly string[]): DocTurn[] {
    return this.rows.mentioning(terms);
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
