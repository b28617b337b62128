/**
 * The item table and its keyword index. Items are durable in SQLite together with their BM25 terms (the
 * shared tokenizer's tokens, stemmed), and ranked by an in-memory BM25 index rebuilt from those terms on
 * open (see bm25.ts for why not FTS5's ranking). Indexing the tokenizer's output matters for Chinese:
 * a whitespace or unicode61 tokenizer would keep a whole Chinese sentence as one token.
 */
import type Database from "better-sqlite3";
import { cleanText, tokenize } from "../embedding/text.js";
import { Bm25Index, bm25Terms } from "./bm25.js";

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
    meta TEXT NOT NULL DEFAULT '{}',
    terms TEXT NOT NULL DEFAULT ''
  );
  CREATE INDEX IF NOT EXISTS search_items_kind ON search_items(kind);`;

/** BM25 terms of a text, stored space-joined (no term contains a space). */
export function termsOf(text: string): string[] {
  return bm25Terms(tokenize(text));
}

type ItemRow = { rowid: number; kind: string; text: string; meta: string; terms: string };

export class KeywordIndex {
  private readonly st;
  private bm25 = new Bm25Index();

  constructor(private readonly db: DB) {
    db.exec(SCHEMA);
    this.st = {
      byId: db.prepare<[string], ItemRow>("SELECT rowid, kind, text, meta, terms FROM search_items WHERE id = ?"),
      insert: db.prepare<[string, string, string, string, string], { rowid: number }>(
        "INSERT INTO search_items(id, kind, text, meta, terms) VALUES (?, ?, ?, ?, ?) RETURNING rowid",
      ),
      update: db.prepare("UPDATE search_items SET kind = ?, text = ?, meta = ?, terms = ? WHERE rowid = ?"),
      updateMeta: db.prepare("UPDATE search_items SET meta = ? WHERE rowid = ?"),
      delete: db.prepare("DELETE FROM search_items WHERE rowid = ?"),
      allTerms: db.prepare<[], { rowid: number; kind: string; terms: string }>(
        "SELECT rowid, kind, terms FROM search_items",
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
    this.reload();
  }

  /** Rebuilds the in-memory BM25 index from the stored terms (on open, and after a failed transaction). */
  reload(): void {
    const bm25 = new Bm25Index();
    for (const r of this.st.allTerms.iterate()) bm25.add(r.rowid, r.kind, splitTerms(r.terms));
    this.bm25 = bm25;
  }

  /**
   * Inserts or updates items in one transaction; returns the rows whose vectors must be recomputed. The
   * in-memory index follows each write at once: a caller whose enclosing transaction fails calls reload().
   */
  upsert(items: readonly ItemInput[]): ChangedRow[] {
    const changed: ChangedRow[] = [];
    this.db.transaction(() => {
      for (const item of items) {
        const text = cleanText(item.text);
        const kind = item.kind ?? "";
        const meta = JSON.stringify(item.meta ?? {});
        const old = this.st.byId.get(item.id);
        if (old && old.text === text && old.kind === kind) {
          if (old.meta !== meta) this.st.updateMeta.run(meta, old.rowid);
          continue;
        }
        const terms = termsOf(text);
        const joined = terms.join(" ");
        let rowid: number;
        if (old) {
          rowid = old.rowid;
          this.st.update.run(kind, text, meta, joined, rowid);
          this.bm25.delete(rowid, splitTerms(old.terms));
        } else {
          rowid = this.st.insert.get(item.id, kind, text, meta, joined)!.rowid;
        }
        this.bm25.add(rowid, kind, terms);
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
      this.bm25.delete(old.rowid, splitTerms(old.terms));
      gone.push(old.rowid);
    }
    return gone;
  }

  /** The `limit` best BM25 matches for any of the query tokens (score > 0, higher is better). */
  top(queryTokens: readonly string[], limit: number, kind?: string): Array<{ rowid: number; s: number }> {
    return this.bm25.top(bm25Terms(queryTokens), limit, kind).map((h) => ({ rowid: h.doc, s: h.score }));
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

function splitTerms(joined: string): string[] {
  return joined === "" ? [] : joined.split(" ");
}
