/**
 * Vectors in sqlite-vec `vec0` tables (cosine), one table per vector space = (provider fingerprint,
 * dimension). Keeping spaces in separate tables makes it structurally impossible to compare a query with
 * a vector from another model: a query only ever reads the table of its own space. Rows share the item's
 * rowid, and carry the item's kind as a vec0 metadata column so a KNN query can filter on it.
 *
 * Beside each vec0 table, a plain table keeps an 8-bit copy of every vector for rescoring candidates by
 * rowid: vec0 reads a vector by rowid through its chunk blob (≈ 90 µs at random), a plain B-tree row
 * costs ≈ 15 µs, which decides whether a 100k-item search fits in a few milliseconds.
 */
import type Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { cosineQuantized, quantizeDirection } from "./quantize.js";

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
    insert: db.prepare(`INSERT INTO ${table}(rowid, embedding, kind) VALUES (?, ?, ?)`),
    delete: db.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
    has: db.prepare<[bigint], { x: number }>(`SELECT 1 AS x FROM ${table} WHERE rowid = ?`),
    knn: db.prepare<[Float32Array, number], { rowid: number; distance: number }>(
      `SELECT rowid, distance FROM ${table} WHERE embedding MATCH ? AND k = ?`,
    ),
    knnKind: db.prepare<[Float32Array, number, string], { rowid: number; distance: number }>(
      `SELECT rowid, distance FROM ${table} WHERE embedding MATCH ? AND k = ? AND kind = ?`,
    ),
    putQuantized: db.prepare(`INSERT OR REPLACE INTO ${table}_q(rowid, q) VALUES (?, ?)`),
    deleteQuantized: db.prepare(`DELETE FROM ${table}_q WHERE rowid = ?`),
    quantized: db.prepare<[number], Buffer>(`SELECT q FROM ${table}_q WHERE rowid = ?`).pluck(),
    count: db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}_rowids`),
  };
}

export class VectorIndex {
  private readonly statements = new Map<number, Statements>();
  /** Vector counts per space, dropped on every write and recounted when asked. */
  private readonly sizes = new Map<number, number>();
  private readonly st;

  constructor(private readonly db: DB) {
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
    };
  }

  spaces(): VectorSpace[] {
    return this.st.all.all().map(toSpace);
  }

  /** The space for this fingerprint and dimension, created (with its vec0 table) if new. */
  open(fingerprint: string, dimension: number, complete: boolean): VectorSpace {
    if (!Number.isInteger(dimension) || dimension <= 0) {
      throw new Error(`embedding dimension must be a positive integer, got ${dimension}`);
    }
    const found = this.st.find.get(fingerprint, dimension);
    if (found) return toSpace(found);
    return this.db.transaction(() => {
      const row = this.st.create.get(fingerprint, dimension, complete ? 1 : 0)!;
      this.db.exec(`CREATE TABLE ${tableOf(row.id)}_q (rowid INTEGER PRIMARY KEY, q BLOB NOT NULL)`);
      this.db.exec(
        `CREATE VIRTUAL TABLE ${tableOf(row.id)} USING vec0(embedding float[${dimension}] distance_metric=cosine, kind text)`,
      );
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
    this.db.transaction(() => {
      this.db.exec(`DROP TABLE IF EXISTS ${tableOf(space.id)}`);
      this.db.exec(`DROP TABLE IF EXISTS ${tableOf(space.id)}_q`);
      this.st.drop.run(space.id);
    })();
  }

  /** Writes (replaces) one item's vector. Run inside the caller's transaction when writing many. */
  put(space: VectorSpace, rowid: number, kind: string, vector: Float32Array): void {
    if (vector.length !== space.dimension) {
      throw new Error(
        `embedding provider returned a ${vector.length}-dimensional vector for a ${space.dimension}-dimensional space "${space.fingerprint}"`,
      );
    }
    const st = this.stmts(space);
    this.sizes.delete(space.id);
    st.delete.run(BigInt(rowid));
    st.insert.run(BigInt(rowid), vector, kind);
    st.putQuantized.run(rowid, quantizeDirection(vector));
  }

  /** Removes the vectors of these items from every space. */
  delete(rowids: readonly number[]): void {
    this.sizes.clear();
    for (const space of this.spaces()) {
      const st = this.stmts(space);
      for (const rowid of rowids) {
        st.delete.run(BigInt(rowid));
        st.deleteQuantized.run(rowid);
      }
    }
  }

  size(space: VectorSpace): number {
    let n = this.sizes.get(space.id);
    if (n === undefined) {
      n = this.stmts(space).count.get()!.n;
      this.sizes.set(space.id, n);
    }
    return n;
  }

  has(space: VectorSpace, rowid: number): boolean {
    return this.stmts(space).has.get(BigInt(rowid)) !== undefined;
  }

  /** The `k` nearest vectors to `query` (which must belong to this space), optionally of one kind. */
  knn(space: VectorSpace, query: Float32Array, k: number, kind?: string): Neighbour[] {
    const st = this.stmts(space);
    const rows = kind === undefined ? st.knn.all(query, k) : st.knnKind.all(query, k, kind);
    return rows.map((r) => ({ rowid: r.rowid, similarity: 1 - r.distance }));
  }

  /** Cosine similarity (from the 8-bit copy) of `query` with one item's vector; undefined when it has none. */
  similarity(space: VectorSpace, query: Float32Array, rowid: number): number | undefined {
    const q = this.stmts(space).quantized.get(rowid);
    return q && cosineQuantized(query, q);
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

function tableOf(spaceId: number): string {
  return `search_vec_${spaceId}`;
}

function toSpace(r: SpaceRow): VectorSpace {
  return { id: r.id, fingerprint: r.fingerprint, dimension: r.dimension, complete: r.complete === 1, cursor: r.cursor };
}
