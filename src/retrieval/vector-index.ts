/**
 * Vectors, one table per vector space = (provider fingerprint, dimension). Keeping spaces apart makes it
 * structurally impossible to compare a query with a vector from another model: a query only ever reads
 * its own space. Each space's table holds an 8-bit copy of every vector (one byte per dimension, cosine
 * within ≈ 1 % of the exact value), keyed by the item's rowid: the durable source, read to rescore
 * candidates by rowid and loaded into the in-memory matrices (vector-matrix.ts) that answer KNN queries.
 *
 * Writes reach the matrices only after their transaction commits (transaction() below), so a rolled-back
 * write leaves no trace in memory.
 */
import type Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { HomeAgentError } from "../util/errors.js";
import { filterSql, type NormalFilter } from "./filter.js";
import { codesOf, cosineQuantized, dequantize, quantizeDirection, scaleOf } from "./quantize.js";
import { VectorMatrix } from "./vector-matrix.js";

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

type Statements = ReturnType<typeof prepare>;

function prepare(db: DB, table: string) {
  return {
    put: db.prepare(`INSERT OR REPLACE INTO ${table}(rowid, q) VALUES (?, ?)`),
    delete: db.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
    get: db.prepare<[number], Buffer>(`SELECT q FROM ${table} WHERE rowid = ?`).pluck(),
    count: db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck(),
    all: db.prepare<[], { rowid: number; q: Buffer }>(`SELECT rowid, q FROM ${table}`),
    rowids: db.prepare<[], number>(`SELECT rowid FROM ${table}`).pluck(),
  };
}

type MatrixOp =
  | { op: "put"; space: number; rowid: number; kind: string; codes: Int8Array; scale: number }
  | { op: "remove"; space: number; rowid: number }
  | { op: "rekind"; rowid: number; kind: string };

export class VectorIndex {
  private readonly statements = new Map<number, Statements>();
  /** Vector counts per space, dropped on every write and recounted when asked. */
  private readonly sizes = new Map<number, number>();
  /** Matrices of the spaces searched so far (in practice the current one). */
  private readonly matrices = new Map<number, VectorMatrix>();
  /** Matrix updates of the open transaction, applied when it commits. */
  private pending: MatrixOp[] = [];
  private readonly st;

  constructor(private readonly db: DB) {
    // Loaded to drop the vec0 tables of earlier versions (dropping a virtual table needs its module).
    sqliteVec.load(db);
    db.exec(`CREATE TABLE IF NOT EXISTS search_spaces (
      id INTEGER PRIMARY KEY,
      fingerprint TEXT NOT NULL,
      dimension INTEGER NOT NULL,
      complete INTEGER NOT NULL DEFAULT 0,
      cursor INTEGER NOT NULL DEFAULT 0,
      UNIQUE (fingerprint, dimension)
    )`);
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
      kinds: db.prepare<[], [number, string]>("SELECT rowid, kind FROM search_items").raw(true),
    };
    this.dropVec0Tables();
  }

  spaces(): VectorSpace[] {
    return this.st.all.all().map(toSpace);
  }

  /** The space for this fingerprint and dimension, created (with its table) if new. */
  open(fingerprint: string, dimension: number, complete: boolean): VectorSpace {
    if (!Number.isInteger(dimension) || dimension <= 0) {
      throw new HomeAgentError({
        code: "invalid_argument",
        message: `embedding dimension must be a positive integer, got ${dimension}`,
      });
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

  /** Drops the space and its vectors. */
  drop(space: VectorSpace): void {
    this.statements.delete(space.id);
    this.sizes.delete(space.id);
    this.matrices.delete(space.id);
    this.db.transaction(() => {
      this.db.exec(`DROP TABLE IF EXISTS ${tableOf(space.id)}`);
      this.st.drop.run(space.id);
    })();
  }

  /** Loads the space's vectors into memory now (else on its first search). */
  load(space: VectorSpace): void {
    this.matrix(space);
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
      throw new HomeAgentError({
        code: "embedding_invalid_data",
        message: `embedding provider returned a ${vector.length}-dimensional vector for a ${space.dimension}-dimensional space "${space.fingerprint}"`,
      });
    }
    this.sizes.delete(space.id);
    const q = quantizeDirection(vector);
    this.stmts(space).put.run(rowid, q);
    this.pending.push({ op: "put", space: space.id, rowid, kind, codes: codesOf(q), scale: scaleOf(q) });
  }

  /** Removes the vectors of these items from every space. Call inside transaction(). */
  delete(rowids: readonly number[]): void {
    if (rowids.length === 0) return;
    this.sizes.clear();
    for (const space of this.spaces()) {
      const st = this.stmts(space);
      for (const rowid of rowids) {
        if (st.delete.run(rowid).changes > 0) this.pending.push({ op: "remove", space: space.id, rowid });
      }
    }
  }

  /** The item's kind changed (its vectors did not): they move to that kind's matrix. Call inside transaction(). */
  rekind(rowid: number, kind: string): void {
    this.pending.push({ op: "rekind", rowid, kind });
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
    return this.matrix(space).search(query, k, kinds);
  }

  /** The `k` nearest among the items the filter lets through, by scanning their 8-bit copies. */
  scan(space: VectorSpace, query: Float32Array, k: number, filter: NormalFilter): Neighbour[] {
    const { where, params } = filterSql(filter);
    const rowids = this.db
      .prepare<Array<string | number>, number>(`SELECT rowid FROM search_items WHERE ${where}`)
      .pluck()
      .all(...params);
    return this.matrix(space).searchAmong(query, k, rowids);
  }

  /** One item's vector direction (from its 8-bit copy); undefined when it has none in this space. */
  vectorOf(space: VectorSpace, rowid: number): Float32Array | undefined {
    const q = this.stmts(space).get.get(rowid);
    return q && dequantize(q);
  }

  /**
   * Cosine similarity (from the 8-bit copy) of `query` with one item's vector; undefined when it has none.
   * Read from the loaded matrix (the same copy, committed writes only): a search rescores up to a few
   * hundred keyword candidates, and a database read each cost ≈ 20 µs.
   */
  similarity(space: VectorSpace, query: Float32Array, rowid: number): number | undefined {
    const m = this.matrices.get(space.id);
    if (m) return m.similarity(query, rowid);
    const q = this.stmts(space).get.get(rowid);
    return q && cosineQuantized(query, q);
  }

  /** The space's vectors in memory, loaded from its table on first use. */
  private matrix(space: VectorSpace): VectorMatrix {
    let m = this.matrices.get(space.id);
    if (!m) {
      m = new VectorMatrix(space.dimension);
      // Plain scans beat one join by about 3× (measured at 20k items); sizing each kind's matrix first
      // allocates it once.
      const kinds = new Map(this.st.kinds.all());
      const perKind = new Map<string, number>();
      for (const rowid of this.stmts(space).rowids.iterate()) {
        const kind = kinds.get(rowid);
        if (kind !== undefined) perKind.set(kind, (perKind.get(kind) ?? 0) + 1);
      }
      for (const [kind, n] of perKind) m.reserve(kind, n);
      for (const r of this.stmts(space).all.iterate()) {
        const kind = kinds.get(r.rowid);
        if (kind !== undefined) m.put(r.rowid, kind, codesOf(r.q), scaleOf(r.q));
      }
      this.matrices.set(space.id, m);
    }
    return m;
  }

  private applyPending(): void {
    const ops = this.pending;
    this.pending = [];
    for (const op of ops) {
      if (op.op === "rekind") {
        for (const m of this.matrices.values()) m.rekind(op.rowid, op.kind);
        continue;
      }
      const m = this.matrices.get(op.space);
      if (!m) continue; // not loaded: it reads the table when it is
      if (op.op === "put") m.put(op.rowid, op.kind, op.codes, op.scale);
      else m.remove(op.rowid);
    }
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

/** The table of each vector space, for a check that reads them with a connection of its own. */
export function vectorTables(db: DB): string[] {
  const spaces = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_spaces'").get();
  if (!spaces) return [];
  return db.prepare<[], number>("SELECT id FROM search_spaces ORDER BY id").pluck().all().map(tableOf);
}

/** The 8-bit copies keep the table name they had beside vec0, so existing databases need no copy. */
function tableOf(spaceId: number): string {
  return `search_vec_${spaceId}_q`;
}

function toSpace(r: SpaceRow): VectorSpace {
  return { id: r.id, fingerprint: r.fingerprint, dimension: r.dimension, complete: r.complete === 1, cursor: r.cursor };
}
