/**
 * The vectors of one vector space held in memory for nearest-neighbour search: per item kind, one
 * contiguous Int8Array of the 8-bit copies (one byte per dimension), scanned exactly with usearch's SIMD
 * kernels. Measured against HNSW graphs (usearch, hnswlib-node) in the issue-8 note: the scan costs
 * ≈ 0.8 ms at 20k × 1024 dimensions and ≈ 4 ms at 100k, and unlike a graph it always finds the one item
 * a query is close to when all others are equally far (a graph's greedy walk missed it at 20k); it needs
 * no saved state either — it is rebuilt from SQLite when the space is opened.
 *
 * One matrix per kind (kind-matrix.ts) makes the kind filter the memory layers always use exact and free.
 */
import { HomeAgentError } from "../util/errors.js";
import { codeNorm, KindMatrix, type MatrixHit, scan } from "./kind-matrix.js";
import { type Nonzero, nonzero } from "./postings.js";
import { Sketcher } from "./sketch.js";

export type { MatrixHit } from "./kind-matrix.js";

export class VectorMatrix {
  private readonly kinds = new Map<string, KindMatrix>();
  private readonly queryDims = new WeakMap<Float32Array, Nonzero>();
  private readonly sketcher: Sketcher;

  constructor(readonly dimension: number) {
    this.sketcher = new Sketcher(dimension);
  }

  size(): number {
    let n = 0;
    for (const m of this.kinds.values()) n += m.count;
    return n;
  }

  /** Makes room for this many rows of a kind (before a bulk load). */
  reserve(kind: string, rows: number): void {
    this.kindMatrix(kind).reserve(rows);
  }

  /**
   * Adds or replaces one item's 8-bit codes (the bytes after quantizeDirection's 4-byte scale) and that
   * scale (default: the one that makes the codes a unit vector).
   */
  put(rowid: number, kind: string, codes: Int8Array, scale = unitScale(codes)): void {
    if (codes.length !== this.dimension) {
      throw new HomeAgentError({
        code: "embedding_invalid_data",
        message: `a ${codes.length}-dimensional vector cannot join a ${this.dimension}-dimensional matrix`,
      });
    }
    for (const [k, m] of this.kinds) if (k !== kind) m.remove(rowid);
    this.kindMatrix(kind).put(rowid, codes, scale);
  }

  /**
   * Cosine of `query` with one row, from memory (rescoring keyword candidates by rowid without a database
   * read); undefined when the row has no vector here.
   */
  similarity(query: Float32Array, rowid: number): number | undefined {
    for (const m of this.kinds.values()) {
      const slot = m.slotOf.get(rowid);
      if (slot !== undefined) return m.cosine(this.dimsOf(query), slot);
    }
    return undefined;
  }

  /** The query's nonzero dimensions, computed once per query vector (a search rescores many rows with it). */
  private dimsOf(query: Float32Array): Nonzero {
    let q = this.queryDims.get(query);
    if (!q) {
      q = nonzero(query);
      this.queryDims.set(query, q);
    }
    return q;
  }

  remove(rowid: number): void {
    for (const m of this.kinds.values()) if (m.remove(rowid)) return;
  }

  /** Moves a row to another kind's matrix, codes and scale unchanged; a row not held here is left alone. */
  rekind(rowid: number, kind: string): void {
    for (const [k, m] of this.kinds) {
      const slot = m.slotOf.get(rowid);
      if (slot === undefined) continue;
      if (k === kind) return;
      const codes = m.data.slice(slot * this.dimension, (slot + 1) * this.dimension);
      const scale = m.scales[slot];
      m.remove(rowid);
      this.kindMatrix(kind).put(rowid, codes, scale);
      return;
    }
  }

  private kindMatrix(kind: string): KindMatrix {
    let m = this.kinds.get(kind);
    if (!m) {
      m = new KindMatrix(this.sketcher);
      this.kinds.set(kind, m);
    }
    return m;
  }

  /**
   * The `k` nearest among `rowids` (a filtered set, e.g. one time range): their rows are gathered into one
   * block and scanned with the same SIMD kernel — a per-row loop in JS costs ≈ 3 µs a row at 1024
   * dimensions, which a 2,000-row filter turned into ≈ 6 ms per search.
   */
  searchAmong(query: Float32Array, k: number, rowids: readonly number[]): MatrixHit[] {
    const codes = toCodes(query);
    if (!codes) return [];
    const d = this.dimension;
    const found: Array<{ m: KindMatrix; slot: number }> = [];
    for (const rowid of rowids) {
      for (const m of this.kinds.values()) {
        const slot = m.slotOf.get(rowid);
        if (slot !== undefined) {
          found.push({ m, slot });
          break;
        }
      }
    }
    if (found.length === 0) return [];
    const rows = new Int8Array(found.length * d);
    for (const [i, { m, slot }] of found.entries()) rows.set(m.data.subarray(slot * d, (slot + 1) * d), i * d);
    const r = scan(rows, codes, d, Math.min(k, found.length));
    const out: MatrixHit[] = [];
    for (let i = 0; i < r.keys.length; i++) {
      const { m, slot } = found[Number(r.keys[i])];
      out.push({ rowid: m.rowids[slot], similarity: 1 - r.distances[i] });
    }
    return out.sort((a, b) => b.similarity - a.similarity || a.rowid - b.rowid);
  }

  /** The `k` nearest items of the given kinds (all when null), best first; ties go to the older item. */
  search(query: Float32Array, k: number, kinds: readonly string[] | null): MatrixHit[] {
    const codes = toCodes(query);
    if (!codes) return [];
    const dims = nonzero(codes);
    const hits: MatrixHit[] = [];
    for (const kind of kinds ?? this.kinds.keys()) hits.push(...(this.kinds.get(kind)?.search(codes, dims, k) ?? []));
    return hits.sort((a, b) => b.similarity - a.similarity || a.rowid - b.rowid).slice(0, k);
  }
}

function unitScale(codes: Int8Array): number {
  const norm = codeNorm(codes);
  return norm === 0 ? 0 : 1 / norm;
}

/** The query's direction as signed bytes (the matrix's type: usearch compares like with like). */
function toCodes(v: Float32Array): Int8Array | null {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]));
  if (max === 0) return null;
  const out = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Math.round((v[i] / max) * 127);
  return out;
}
