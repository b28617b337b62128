/**
 * The item table and its keyword index. Items are durable in SQLite together with their BM25 terms (the
 * shared tokenizer's tokens, stemmed), and ranked by an in-memory BM25 index rebuilt from those terms on
 * open (see bm25.ts for why not FTS5's ranking). Indexing the tokenizer's output matters for Chinese:
 * a whitespace or unicode61 tokenizer would keep a whole Chinese sentence as one token.
 */
import type Database from "better-sqlite3";
import { cleanText, tokenize } from "../embedding/text.js";
import { HomeAgentError } from "../util/errors.js";
import { cachedStatement } from "../util/statements.js";
import { Bm25Index, bm25Terms } from "./bm25.js";
import { filterSql, type NormalFilter } from "./filter.js";

type DB = Database.Database;

export interface ItemInput {
  id: string;
  /** Namespace the item belongs to (e.g. "knowledge", a conversation id); searches can filter on it. */
  kind?: string;
  text: string;
  /** When the item happened (unix ms); default: when it is written. */
  ts?: number;
  meta?: Record<string, unknown>;
  /**
   * An item this one takes the place of (a window event archived as a turn): when it holds the same text
   * and `id` is new, it is renamed in place — its terms and vector stay, nothing is tokenized or embedded
   * again. Otherwise this field is ignored; the caller removes the old item as usual.
   */
  replaces?: string;
}

/** An item renamed in place (ItemInput.replaces): its vector must follow it to its kind. */
export interface RenamedRow {
  rowid: number;
  kind: string;
  text: string;
}

export interface StoredItem {
  rowid: number;
  id: string;
  kind: string;
  text: string;
  ts: number;
  meta: Record<string, unknown>;
}

/** A row whose text or kind changed, so its vector has to be (re)computed. */
export interface ChangedRow {
  rowid: number;
  kind: string;
  text: string;
  /** The item existed before: any vector it has describes its old text. */
  replaced?: boolean;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS search_items (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    terms TEXT NOT NULL DEFAULT '',
    ts INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS search_items_kind ON search_items(kind);`;

/** Indexes that need the columns added by migrate(). */
const INDEXES = `
  CREATE INDEX IF NOT EXISTS search_items_kind_ts ON search_items(kind, ts);
  CREATE INDEX IF NOT EXISTS search_items_ts ON search_items(ts);`;

/**
 * Tables written before items had a ts (knowledge bases in users' databases) get the column; their
 * items are dated to the migration, the best that is known of them.
 */
function migrate(db: DB): void {
  const columns = db.prepare<[], { name: string }>("PRAGMA table_info(search_items)").all();
  if (!columns.some((c) => c.name === "ts")) {
    db.transaction(() => {
      db.exec("ALTER TABLE search_items ADD COLUMN ts INTEGER NOT NULL DEFAULT 0");
      db.prepare("UPDATE search_items SET ts = ?").run(Date.now());
    })();
  }
  db.exec(INDEXES);
}

/** Longest page list() returns. */
export const MAX_LIST = 10_000;

/** BM25 terms of a text, stored space-joined (no term contains a space). */
export function termsOf(text: string): string[] {
  return bm25Terms(tokenize(text));
}

type ItemRow = { rowid: number; kind: string; text: string; meta: string; terms: string; ts: number };
type ItemRecord = { rowid: number; id: string; kind: string; text: string; meta: string; ts: number };

export class KeywordIndex {
  private readonly st;
  private bm25 = new Bm25Index();

  constructor(private readonly db: DB) {
    db.exec(SCHEMA);
    migrate(db);
    this.st = {
      byId: db.prepare<[string], ItemRow>("SELECT rowid, kind, text, meta, terms, ts FROM search_items WHERE id = ?"),
      insert: db.prepare<[string, string, string, string, string, number], { rowid: number }>(
        "INSERT INTO search_items(id, kind, text, meta, terms, ts) VALUES (?, ?, ?, ?, ?, ?) RETURNING rowid",
      ),
      update: db.prepare("UPDATE search_items SET kind = ?, text = ?, meta = ?, terms = ?, ts = ? WHERE rowid = ?"),
      updateMeta: db.prepare("UPDATE search_items SET meta = ?, ts = ? WHERE rowid = ?"),
      rename: db.prepare("UPDATE search_items SET id = ?, kind = ?, meta = ?, ts = ? WHERE rowid = ?"),
      delete: db.prepare("DELETE FROM search_items WHERE rowid = ?"),
      allTerms: db.prepare<[], { rowid: number; kind: string; terms: string; ts: number }>(
        "SELECT rowid, kind, terms, ts FROM search_items",
      ),
      get: db.prepare<[number], ItemRecord>("SELECT rowid, id, kind, text, meta, ts FROM search_items WHERE rowid = ?"),
      getMany: db.prepare<[string], ItemRecord>(
        "SELECT rowid, id, kind, text, meta, ts FROM search_items WHERE rowid IN (SELECT value FROM json_each(?))",
      ),
      getByIds: db.prepare<[string], ItemRecord>(
        "SELECT rowid, id, kind, text, meta, ts FROM search_items WHERE id IN (SELECT value FROM json_each(?))",
      ),
      getById: db.prepare<[string], ItemRecord>(
        "SELECT rowid, id, kind, text, meta, ts FROM search_items WHERE id = ?",
      ),
      after: db.prepare<[number, number], ChangedRow>(
        "SELECT rowid, kind, text FROM search_items WHERE rowid > ? ORDER BY rowid LIMIT ?",
      ),
      count: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM search_items"),
      minTs: db.prepare<[string], number | null>("SELECT min(ts) FROM search_items WHERE kind = ?").pluck(),
      maxTs: db.prepare<[string], number | null>("SELECT max(ts) FROM search_items WHERE kind = ?").pluck(),
      maxRowid: db.prepare<[], number | null>("SELECT max(rowid) FROM search_items").pluck(),
      countUpTo: db.prepare<[number], { n: number }>("SELECT count(*) AS n FROM search_items WHERE rowid <= ?"),
    };
    this.reload();
  }

  /** Rebuilds the in-memory BM25 index from the stored terms (on open, and after a failed transaction). */
  reload(): void {
    const bm25 = new Bm25Index();
    for (const r of this.st.allTerms.iterate()) bm25.add(r.rowid, r.kind, splitTerms(r.terms), r.ts);
    this.bm25 = bm25;
  }

  /**
   * Inserts or updates items in one transaction; returns the rows whose vectors must be recomputed. The
   * in-memory index follows each write at once: a caller whose enclosing transaction fails calls reload().
   */
  upsert(items: readonly ItemInput[]): { changed: ChangedRow[]; renamed: RenamedRow[] } {
    const changed: ChangedRow[] = [];
    const renamed: RenamedRow[] = [];
    this.db.transaction(() => {
      for (const item of items) {
        const text = cleanText(item.text);
        const kind = item.kind ?? "";
        const meta = JSON.stringify(item.meta ?? {});
        const old = this.st.byId.get(item.id);
        const from = !old && item.replaces !== undefined ? this.st.byId.get(item.replaces) : undefined;
        if (from && from.text === text) {
          renamed.push(this.rename(from, item.id, kind, meta, itemTs(item, from.ts)));
          continue;
        }
        const ts = itemTs(item, old?.ts);
        if (old && old.text === text && old.kind === kind) {
          if (old.meta !== meta || old.ts !== ts) this.st.updateMeta.run(meta, ts, old.rowid);
          if (old.ts !== ts) {
            const terms = splitTerms(old.terms);
            this.bm25.delete(old.rowid, terms);
            this.bm25.add(old.rowid, kind, terms, ts);
          }
          continue;
        }
        const terms = termsOf(text);
        const joined = terms.join(" ");
        let rowid: number;
        if (old) {
          rowid = old.rowid;
          this.st.update.run(kind, text, meta, joined, ts, rowid);
          this.bm25.delete(rowid, splitTerms(old.terms));
        } else {
          rowid = this.st.insert.get(item.id, kind, text, meta, joined, ts)!.rowid;
        }
        this.bm25.add(rowid, kind, terms, ts);
        changed.push(old ? { rowid, kind, text, replaced: true } : { rowid, kind, text });
      }
    })();
    return { changed, renamed };
  }

  private rename(from: ItemRow, id: string, kind: string, meta: string, ts: number): RenamedRow {
    this.st.rename.run(id, kind, meta, ts, from.rowid);
    if (from.kind !== kind || from.ts !== ts) {
      const terms = splitTerms(from.terms);
      this.bm25.delete(from.rowid, terms);
      this.bm25.add(from.rowid, kind, terms, ts);
    }
    return { rowid: from.rowid, kind, text: from.text };
  }

  /** Removes items by id; returns the rowids that existed. Call inside the caller's transaction. */
  remove(ids: readonly string[]): number[] {
    const gone: number[] = [];
    for (const id of ids) {
      const old = this.st.byId.get(id);
      if (!old) continue;
      this.st.delete.run(old.rowid);
      this.bm25.delete(old.rowid, splitTerms(old.terms));
      gone.push(old.rowid);
    }
    return gone;
  }

  /** The `limit` best BM25 matches for any of the query tokens (score > 0, higher is better). */
  top(queryTokens: readonly string[], limit: number, filter?: NormalFilter): Array<{ rowid: number; s: number }> {
    const bm25Filter = filter && {
      kinds: filter.kinds,
      since: filter.since,
      until: filter.until,
      accept: this.metaAccept(filter),
    };
    return this.bm25.top(bm25Terms(queryTokens), limit, bm25Filter).map((h) => ({ rowid: h.doc, s: h.score }));
  }

  /** BM25 of the query for each of these rows that holds a query token. */
  scoreRows(queryTokens: readonly string[], rowids: readonly number[]): Map<number, number> {
    return this.bm25.scoreDocs(bm25Terms(queryTokens), rowids);
  }

  /** Inverse document frequency of a query token (stemmed as BM25 indexes it). */
  idf(token: string): number {
    return this.bm25.idf(bm25Terms([token])[0]);
  }

  /** The item's length in BM25 terms divided by the average; 1 for an item without terms. */
  lengthRatio(rowid: number): number {
    return this.bm25.lengthRatio(rowid);
  }

  /** Rows passing a metadata filter, as a predicate (undefined when the filter has no metadata part). */
  metaAccept(filter: NormalFilter): ((rowid: number) => boolean) | undefined {
    if (!filter.meta.length) return undefined;
    const allowed = new Set(this.rowids(filter));
    return (rowid) => allowed.has(rowid);
  }

  /** Every rowid the filter lets through. */
  rowids(filter: NormalFilter): number[] {
    const { where, params } = filterSql(filter);
    return cachedStatement<Array<string | number>, number>(this.db, `SELECT rowid FROM search_items WHERE ${where}`)
      .pluck()
      .all(...params);
  }

  /** The ts of an item with BM25 terms (items without any have no entry in memory; read from the table). */
  tsOf(rowid: number): number | undefined {
    return this.bm25.tsOf(rowid) ?? this.st.get.get(rowid)?.ts;
  }

  get(rowid: number): StoredItem | undefined {
    const r = this.st.get.get(rowid);
    return r && toItem(r);
  }

  /** The items of these rowids, in one read (a search reads its hits together); missing ones are absent. */
  getMany(rowids: readonly number[]): Map<number, StoredItem> {
    const out = new Map<number, StoredItem>();
    if (rowids.length === 0) return out;
    for (const r of this.st.getMany.all(JSON.stringify(rowids))) out.set(r.rowid, toItem(r));
    return out;
  }

  /** The items of these ids, in one read (prune scores the whole window at once); missing ones are absent. */
  byIds(ids: readonly string[]): StoredItem[] {
    if (ids.length === 0) return [];
    return this.st.getByIds.all(JSON.stringify(ids)).map(toItem);
  }

  byId(id: string): StoredItem | undefined {
    const r = this.st.getById.get(id);
    return r && toItem(r);
  }

  /** A page of items by ts (then rowid, for a stable order among equal times). */
  list(filter: NormalFilter, offset: number, limit: number, order: "asc" | "desc"): StoredItem[] {
    const { where, params } = filterSql(filter);
    const dir = order === "desc" ? "DESC" : "ASC";
    return cachedStatement<Array<string | number>, ItemRecord>(
      this.db,
      `SELECT rowid, id, kind, text, meta, ts FROM search_items WHERE ${where} ORDER BY ts ${dir}, rowid ${dir} LIMIT ? OFFSET ?`,
    )
      .all(...params, limit, offset)
      .map(toItem);
  }

  /** Items the filter lets through; with `cap`, counting stops there (a range over most items is not walked). */
  countWhere(filter: NormalFilter, cap?: number): number {
    const { where, params } = filterSql(filter);
    const sql =
      cap === undefined
        ? `SELECT count(*) FROM search_items WHERE ${where}`
        : `SELECT count(*) FROM (SELECT 1 FROM search_items WHERE ${where} LIMIT ?)`;
    return cachedStatement<Array<string | number>, number>(this.db, sql)
      .pluck()
      .get(...params, ...(cap === undefined ? [] : [cap]))!;
  }

  /** The oldest and newest ts among the items of these kinds; null when there are none. */
  tsSpan(kinds: readonly string[]): { min: number; max: number } | null {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const kind of kinds) {
      // Per kind, so each bound is one step through the (kind, ts) index.
      const lo = this.st.minTs.get(kind);
      const hi = this.st.maxTs.get(kind);
      if (lo !== null && lo !== undefined) min = Math.min(min, lo);
      if (hi !== null && hi !== undefined) max = Math.max(max, hi);
    }
    return min <= max ? { min, max } : null;
  }

  /** Items in rowid order after `cursor`, for batch jobs. */
  after(cursor: number, limit: number): ChangedRow[] {
    return this.st.after.all(cursor, limit);
  }

  count(): number {
    return this.st.count.get()!.n;
  }

  maxRowid(): number {
    return this.st.maxRowid.get() ?? 0;
  }

  countUpTo(rowid: number): number {
    return this.st.countUpTo.get(rowid)!.n;
  }
}

/** The item's ts; an existing item written again without one keeps its own. */
function itemTs(item: ItemInput, old: number | undefined): number {
  const ts = item.ts ?? old ?? Date.now();
  if (!Number.isFinite(ts)) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: `item "${item.id}" has a ts that is not a finite number: ${item.ts}`,
    });
  }
  return Math.round(ts);
}

function toItem(r: ItemRecord): StoredItem {
  return { rowid: r.rowid, id: r.id, kind: r.kind, text: r.text, ts: r.ts, meta: JSON.parse(r.meta) };
}

function splitTerms(joined: string): string[] {
  return joined === "" ? [] : joined.split(" ");
}
