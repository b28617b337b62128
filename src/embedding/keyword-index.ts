/**
 * The item table and its FTS5 keyword index. FTS5 indexes the space-joined tokens of the shared
 * tokenizer, not the raw text: its own tokenizers would keep a whole Chinese sentence as one token, so a
 * Chinese query would never match. `unicode61` only has to split on the spaces we put in.
 */
import type Database from "better-sqlite3";
import { cleanText, tokenize } from "./text.js";

type DB = Database.Database;

export interface ItemInput {
  id: string;
  /** Namespace the item belongs to (e.g. "knowledge", a conversation id); searches can filter on it. */
  kind?: string;
  text: string;
  meta?: Record<string, unknown>;
}

export interface StoredItem {
  rowid: number;
  id: string;
  kind: string;
  text: string;
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
    meta TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX IF NOT EXISTS search_items_kind ON search_items(kind);
  CREATE VIRTUAL TABLE IF NOT EXISTS search_fts USING fts5(
    tokens, content='', contentless_delete=1, tokenize='porter unicode61'
  );`;

/** FTS5 query syntax for "any of these tokens"; each token is quoted so no token is read as an operator. */
export function matchExpression(tokens: readonly string[]): string {
  return [...new Set(tokens)].map((t) => `"${t.replaceAll('"', '""')}"`).join(" OR ");
}

export class KeywordIndex {
  private readonly st;

  constructor(private readonly db: DB) {
    db.exec(SCHEMA);
    this.st = {
      byId: db.prepare<[string], { rowid: number; kind: string; text: string; meta: string }>(
        "SELECT rowid, kind, text, meta FROM search_items WHERE id = ?",
      ),
      insert: db.prepare<[string, string, string, string], { rowid: number }>(
        "INSERT INTO search_items(id, kind, text, meta) VALUES (?, ?, ?, ?) RETURNING rowid",
      ),
      update: db.prepare("UPDATE search_items SET kind = ?, text = ?, meta = ? WHERE rowid = ?"),
      delete: db.prepare("DELETE FROM search_items WHERE rowid = ?"),
      ftsInsert: db.prepare("INSERT INTO search_fts(rowid, tokens) VALUES (?, ?)"),
      ftsDelete: db.prepare("DELETE FROM search_fts WHERE rowid = ?"),
      top: db.prepare<[string, number], { rowid: number; s: number }>(
        "SELECT rowid, -bm25(search_fts) AS s FROM search_fts WHERE search_fts MATCH ? ORDER BY rank LIMIT ?",
      ),
      // With a kind filter the ranking must only count items of that kind, so the join happens before LIMIT.
      topKind: db.prepare<[string, string, number], { rowid: number; s: number }>(
        `SELECT f.rowid, -bm25(search_fts) AS s FROM search_fts f JOIN search_items i ON i.rowid = f.rowid
         WHERE search_fts MATCH ? AND i.kind = ? ORDER BY rank LIMIT ?`,
      ),
      get: db.prepare<[number], { id: string; kind: string; text: string; meta: string }>(
        "SELECT id, kind, text, meta FROM search_items WHERE rowid = ?",
      ),
      after: db.prepare<[number, number], ChangedRow>(
        "SELECT rowid, kind, text FROM search_items WHERE rowid > ? ORDER BY rowid LIMIT ?",
      ),
      count: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM search_items"),
      countUpTo: db.prepare<[number], { n: number }>("SELECT count(*) AS n FROM search_items WHERE rowid <= ?"),
    };
  }

  /** Inserts or updates items in one transaction; returns the rows whose vectors must be recomputed. */
  upsert(items: readonly ItemInput[]): ChangedRow[] {
    const changed: ChangedRow[] = [];
    this.db.transaction(() => {
      for (const item of items) {
        const text = cleanText(item.text);
        const kind = item.kind ?? "";
        const meta = JSON.stringify(item.meta ?? {});
        const old = this.st.byId.get(item.id);
        if (old && old.text === text && old.kind === kind) {
          if (old.meta !== meta) this.st.update.run(kind, text, meta, old.rowid);
          continue;
        }
        let rowid: number;
        if (old) {
          rowid = old.rowid;
          this.st.update.run(kind, text, meta, rowid);
          this.st.ftsDelete.run(rowid);
        } else {
          rowid = this.st.insert.get(item.id, kind, text, meta)!.rowid;
        }
        this.st.ftsInsert.run(rowid, tokenize(text).join(" "));
        changed.push(old ? { rowid, kind, text, replaced: true } : { rowid, kind, text });
      }
    })();
    return changed;
  }

  /** Removes items by id; returns the rowids that existed. Call inside the caller's transaction. */
  remove(ids: readonly string[]): number[] {
    const gone: number[] = [];
    for (const id of ids) {
      const old = this.st.byId.get(id);
      if (!old) continue;
      this.st.delete.run(old.rowid);
      this.st.ftsDelete.run(old.rowid);
      gone.push(old.rowid);
    }
    return gone;
  }

  /** The `limit` best BM25 matches (score > 0, higher is better). */
  top(match: string, limit: number, kind?: string): Array<{ rowid: number; s: number }> {
    return kind === undefined ? this.st.top.all(match, limit) : this.st.topKind.all(match, kind, limit);
  }

  get(rowid: number): StoredItem | undefined {
    const r = this.st.get.get(rowid);
    return r && { rowid, id: r.id, kind: r.kind, text: r.text, meta: JSON.parse(r.meta) };
  }

  /** Items in rowid order after `cursor`, for batch jobs. */
  after(cursor: number, limit: number): ChangedRow[] {
    return this.st.after.all(cursor, limit);
  }

  count(): number {
    return this.st.count.get()!.n;
  }

  countUpTo(rowid: number): number {
    return this.st.countUpTo.get(rowid)!.n;
  }
}
