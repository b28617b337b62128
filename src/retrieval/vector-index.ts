/**
 * Vectors, one table per vector space = (provider fingerprint, dimension). Keeping spaces apart makes it
 * structurally impossible to compare a query with a vector from another model: a query only ever reads
 * its own space. Each space's table holds an 8-bit copy of every vector (one byte per dimension, cosine
 * within ≈ 1 % of the exact value), keyed by the item's rowid: it is the durable source, read to rescore
 * candidates and to rebuild the nearest-neighbour graphs (ann.ts) that answer KNN queries.
 *
 * Writes reach the graphs only after their transaction commits (transaction() below), so a rolled-back
 * write leaves no trace in memory. Each write also lists the rowid in `search_ann_dirty`, in the same
 * transaction; saving the graphs clears the list, and loading them replays it, so graphs saved before a
 * crash are brought up to date on the next open.
 */
import type Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { AnnSpace } from "./ann.js";
import { filterSql, type NormalFilter } from "./filter.js";
import { cosineQuantized, dequantize, quantizeDirection } from "./quantize.js";

type DB = Database.Database;

export interface VectorSpace {
  id: number;
  fingerprint: string;
  dimension: number;
  /** Every item had its vector computed (or found nothing to embed) in this space. */
  complete: boolean;
  /** Re-embedding progress: items up to this rowid have been processed. */
  cursor: number;
}

interface SpaceRow {
  id: number;
  fingerprint: string;
  dimension: number;
  complete: number;
  cursor: number;
}

export interface Neighbour {
  rowid: number;
  /** Cosine similarity, -1 … 1. */
  similarity: number;
}

/** Graphs are saved once this many rows of a space have changed since the last save (and on close). */
const SAVE_AFTER_CHANGES = 2000;

type Statements = ReturnType<typeof prepare>;

function prepare(db: DB, table: string) {
  return {
    put: db.prepare(`INSERT OR REPLACE INTO ${table}(rowid, q) VALUES (?, ?)`),
    delete: db.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
    get: db.prepare<[number], Buffer>(`SELECT q FROM ${table} WHERE rowid = ?`).pluck(),
    count: db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck(),
    byKind: db.prepare<[], { kind: string; n: number }>(
      `SELECT i.kind AS kind, count(*) AS n FROM ${table} v JOIN search_items i ON i.rowid = v.rowid GROUP BY i.kind`,
    ),
    ofKind: db.prepare<[string], { rowid: number; q: Buffer }>(
      `SELECT v.rowid AS rowid, v.q AS q FROM ${table} v JOIN search_items i ON i.rowid = v.rowid WHERE i.kind = ?`,
    ),
    withKind: db.prepare<[number], { kind: string; q: Buffer }>(
      `SELECT i.kind AS kind, v.q AS q FROM ${table} v JOIN search_items i ON i.rowid = v.rowid WHERE v.rowid = ?`,
    ),
  };
}

type AnnOp = { space: number; rowid: number; kind?: string; vector?: Float32Array };

export class VectorIndex {
  private readonly statements = new Map<number, Statements>();
  /** Vector counts per space, dropped on every write and recounted when asked. */
  private readonly sizes = new Map<number, number>();
  /** Graphs of the spaces searched so far. */
  private readonly anns = new Map<number, AnnSpace>();
  /** Graph updates of the open transaction, applied when it commits. */
  private pending: AnnOp[] = [];
  private readonly changedSinceSave = new Map<number, number>();
  private readonly st;

  constructor(
    private readonly db: DB,
    /** Folder for the saved graphs (beside the database file); null for an in-memory database. */
    private readonly annDir: string | null,
  ) {
    // Loaded to drop the vec0 tables of earlier versions (dropping a virtual table needs its module).
    sqliteVec.load(db);
    db.exec(`CREATE TABLE IF NOT EXISTS search_spaces (
      id INTEGER PRIMARY KEY,
      fingerprint TEXT NOT NULL,
      dimension INTEGER NOT NULL,
      complete INTEGER NOT NULL DEFAULT 0,
      cursor INTEGER NOT NULL DEFAULT 0,
      UNIQUE (fingerprint, dimension)
    );
    CREATE TABLE IF NOT EXISTS search_ann_dirty (
      space INTEGER NOT NULL,
      rowid INTEGER NOT NULL,
      PRIMARY KEY (space, rowid)
    ) WITHOUT ROWID`);
    this.st = {
      all: db.prepare<[], SpaceRow>("SELECT * FROM search_spaces ORDER BY id"),
      find: db.prepare<[string, number], SpaceRow>(
        "SELECT * FROM search_spaces WHERE fingerprint = ? AND dimension = ?",
      ),
      create: db.prepare<[string, number, number], SpaceRow>(
        "INSERT INTO search_spaces(fingerprint, dimension, complete) VALUES (?, ?, ?) RETURNING *",
      ),
      progress: db.prepare("UPDATE search_spaces SET cursor = ?, complete = ? WHERE id = ?"),
      drop: db.prepare("DELETE FROM search_spaces WHERE id = ?"),
      dirty: db.prepare("INSERT OR IGNORE INTO search_ann_dirty(space, rowid) VALUES (?, ?)"),
      dirtyOf: db.prepare<[number], number>("SELECT rowid FROM search_ann_dirty WHERE space = ?").pluck(),
      clean: db.prepare("DELETE FROM search_ann_dirty WHERE space = ?"),
    };
    this.dropVec0Tables();
  }

  spaces(): VectorSpace[] {
    return this.st.all.all().map(toSpace);
  }

  /** The space for this fingerprint and dimension, created (with its table) if new. */
  open(fingerprint: string, dimension: number, complete: boolean): VectorSpace {
    if (!Number.isInteger(dimension) || dimension <= 0) {
      throw new Error(`embedding dimension must be a positive integer, got ${dimension}`);
    }
    const found = this.st.find.get(fingerprint, dimension);
    if (found) return toSpace(found);
    return this.db.transaction(() => {
      const row = this.st.create.get(fingerprint, dimension, complete ? 1 : 0)!;
      this.db.exec(`CREATE TABLE ${tableOf(row.id)} (rowid INTEGER PRIMARY KEY, q BLOB NOT NULL)`);
      return toSpace(row);
    })();
  }

  setProgress(space: VectorSpace, cursor: number, complete: boolean): void {
    this.st.progress.run(cursor, complete ? 1 : 0, space.id);
    space.cursor = cursor;
    space.complete = complete;
  }

  /** Drops the space, its vectors and its saved graphs. */
  drop(space: VectorSpace): void {
    this.statements.delete(space.id);
    this.sizes.delete(space.id);
    this.changedSinceSave.delete(space.id);
    (this.anns.get(space.id) ?? new AnnSpace(space.dimension, this.dirOf(space.id))).destroy();
    this.anns.delete(space.id);
    this.db.transaction(() => {
      this.db.exec(`DROP TABLE IF EXISTS ${tableOf(space.id)}`);
      this.st.clean.run(space.id);
      this.st.drop.run(space.id);
    })();
  }

  /**
   * Runs `fn` in a transaction (nested ones become savepoints); graph updates of the outermost one are
   * applied when it commits and forgotten when it rolls back.
   */
  transaction<T>(fn: () => T): T {
    const outermost = !this.db.inTransaction;
    const before = this.pending.length;
    try {
      const out = this.db.transaction(fn)();
      if (outermost) this.applyPending();
      return out;
    } catch (err) {
      this.pending.length = before;
      this.sizes.clear();
      throw err;
    }
  }

  /** Writes (replaces) one item's vector. Call inside transaction(). */
  put(space: VectorSpace, rowid: number, kind: string, vector: Float32Array): void {
    if (vector.length !== space.dimension) {
      throw new Error(
        `embedding provider returned a ${vector.length}-dimensional vector for a ${space.dimension}-dimensional space "${space.fingerprint}"`,
      );
    }
    this.sizes.delete(space.id);
    this.stmts(space).put.run(rowid, quantizeDirection(vector));
    this.journal(space.id, rowid);
    this.pending.push({ space: space.id, rowid, kind, vector });
  }

  /** Removes the vectors of these items from every space. Call inside transaction(). */
  delete(rowids: readonly number[]): void {
    if (rowids.length === 0) return;
    this.sizes.clear();
    for (const space of this.spaces()) {
      const st = this.stmts(space);
      for (const rowid of rowids) {
        if (st.delete.run(rowid).changes === 0) continue;
        this.journal(space.id, rowid);
        this.pending.push({ space: space.id, rowid });
      }
    }
  }

  size(space: VectorSpace): number {
    let n = this.sizes.get(space.id);
    if (n === undefined) {
      n = this.stmts(space).count.get()!;
      this.sizes.set(space.id, n);
    }
    return n;
  }

  has(space: VectorSpace, rowid: number): boolean {
    return this.stmts(space).get.get(rowid) !== undefined;
  }

  /** The `k` nearest vectors to `query` (which must belong to this space), of the given kinds or all. */
  knn(space: VectorSpace, query: Float32Array, k: number, kinds: readonly string[] | null = null): Neighbour[] {
    return this.ann(space).search(query, k, kinds);
  }

  /** The `k` nearest among the items the filter lets through, by scanning their 8-bit copies. */
  scan(space: VectorSpace, query: Float32Array, k: number, filter: NormalFilter): Neighbour[] {
    const { where, params } = filterSql(filter);
    const rows = this.db
      .prepare<Array<string | number>, { rowid: number; q: Buffer }>(
        `SELECT v.rowid AS rowid, v.q AS q FROM ${tableOf(space.id)} v JOIN search_items i ON i.rowid = v.rowid WHERE ${where}`,
      )
      .iterate(...params);
    const out: Neighbour[] = [];
    for (const r of rows) out.push({ rowid: r.rowid, similarity: cosineQuantized(query, r.q) });
    return out.sort((a, b) => b.similarity - a.similarity || a.rowid - b.rowid).slice(0, k);
  }

  /** One item's vector direction (from its 8-bit copy); undefined when it has none in this space. */
  vectorOf(space: VectorSpace, rowid: number): Float32Array | undefined {
    const q = this.stmts(space).get.get(rowid);
    return q && dequantize(q);
  }

  /** Cosine similarity (from the 8-bit copy) of `query` with one item's vector; undefined when it has none. */
  similarity(space: VectorSpace, query: Float32Array, rowid: number): number | undefined {
    const q = this.stmts(space).get.get(rowid);
    return q && cosineQuantized(query, q);
  }

  /** Saves the graphs of every loaded space (on close). */
  save(): void {
    for (const id of this.anns.keys()) this.saveSpace(id);
  }

  /** The space's graphs, loaded (and brought up to date with SQLite) on first use. */
  private ann(space: VectorSpace): AnnSpace {
    let ann = this.anns.get(space.id);
    if (ann) return ann;
    ann = new AnnSpace(space.dimension, this.dirOf(space.id));
    const st = this.stmts(space);
    const counts = new Map(st.byKind.all().map((r) => [r.kind, r.n]));
    const missing = new Set(ann.load([...counts.keys()]));
    for (const rowid of this.st.dirtyOf.all(space.id)) {
      ann.remove(rowid);
      const row = st.withKind.get(rowid);
      if (row && !missing.has(row.kind)) ann.put(rowid, row.kind, dequantize(row.q));
    }
    for (const kind of ann.kinds()) if (!counts.has(kind)) ann.reset(kind);
    for (const [kind, n] of counts) {
      if (!missing.has(kind) && ann.size(kind) === n) continue;
      // Lost or out of step with SQLite (a copied database, a deleted file): rebuild from the copies.
      ann.reset(kind);
      for (const r of st.ofKind.iterate(kind)) ann.put(r.rowid, kind, dequantize(r.q));
      missing.add(kind);
    }
    this.anns.set(space.id, ann);
    if (missing.size > 0 || this.st.dirtyOf.all(space.id).length > 0) this.saveSpace(space.id);
    return ann;
  }

  private applyPending(): void {
    const ops = this.pending;
    this.pending = [];
    for (const op of ops) {
      const ann = this.anns.get(op.space);
      if (!ann) continue; // not loaded: the journal brings it up to date when it is
      if (op.vector && op.kind !== undefined) ann.put(op.rowid, op.kind, op.vector);
      else ann.remove(op.rowid);
    }
    for (const [id, n] of this.changedSinceSave) {
      if (n >= SAVE_AFTER_CHANGES && this.anns.has(id)) this.saveSpace(id);
    }
  }

  private journal(space: number, rowid: number): void {
    if (!this.annDir) return;
    this.st.dirty.run(space, rowid);
    this.changedSinceSave.set(space, (this.changedSinceSave.get(space) ?? 0) + 1);
  }

  private saveSpace(id: number): void {
    const ann = this.anns.get(id);
    if (!ann || !this.annDir) return;
    ann.save();
    this.st.clean.run(id);
    this.changedSinceSave.delete(id);
  }

  private dirOf(spaceId: number): string | null {
    return this.annDir && `${this.annDir}/space-${spaceId}`;
  }

  /** Earlier versions kept full vectors in vec0 tables beside the 8-bit copies; the copies now suffice. */
  private dropVec0Tables(): void {
    const old = this.db
      .prepare<[], string>(
        "SELECT name FROM sqlite_master WHERE name GLOB 'search_vec_[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'",
      )
      .pluck()
      .all();
    for (const name of old) this.db.exec(`DROP TABLE ${name}`);
  }

  private stmts(space: VectorSpace): Statements {
    let st = this.statements.get(space.id);
    if (!st) {
      st = prepare(this.db, tableOf(space.id));
      this.statements.set(space.id, st);
    }
    return st;
  }
}

/** The 8-bit copies keep the table name they had beside vec0, so existing databases need no copy. */
function tableOf(spaceId: number): string {
  return `search_vec_${spaceId}_q`;
}

function toSpace(r: SpaceRow): VectorSpace {
  return { id: r.id, fingerprint: r.fingerprint, dimension: r.dimension, complete: r.complete === 1, cursor: r.cursor };
}
