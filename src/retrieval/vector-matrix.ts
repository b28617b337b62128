/**
 * The vectors of one vector space held in memory for nearest-neighbour search: per item kind, one
 * contiguous Int8Array of the 8-bit copies (one byte per dimension), scanned exactly with usearch's SIMD
 * kernels. Measured against HNSW graphs (usearch, hnswlib-node) in the issue-8 note: the scan costs
 * ≈ 0.8 ms at 20k × 1024 dimensions and ≈ 4 ms at 100k, and unlike a graph it always finds the one item
 * a query is close to when all others are equally far (a graph's greedy walk missed it at 20k); it needs
 * no saved state either — it is rebuilt from SQLite when the space is opened.
 *
 * One matrix per kind makes the kind filter the memory layers always use exact and free. Removing a row
 * moves the last row into its place, so a matrix never holds more than its live rows (plus growth slack).
 */
import { exactSearch, MetricKind } from "usearch";

export interface MatrixHit {
  rowid: number;
  /** Cosine similarity, -1 … 1 (of the 8-bit codes). */
  similarity: number;
}

class KindMatrix {
  data: Int8Array;
  rowids: Float64Array;
  count = 0;
  readonly slotOf = new Map<number, number>();

  constructor(private readonly dimension: number) {
    this.data = new Int8Array(dimension * 64);
    this.rowids = new Float64Array(64);
  }

  put(rowid: number, codes: Int8Array): void {
    let slot = this.slotOf.get(rowid);
    if (slot === undefined) {
      if (this.count === this.rowids.length) this.grow();
      slot = this.count++;
      this.slotOf.set(rowid, slot);
      this.rowids[slot] = rowid;
    }
    this.data.set(codes, slot * this.dimension);
  }

  remove(rowid: number): boolean {
    const slot = this.slotOf.get(rowid);
    if (slot === undefined) return false;
    const last = --this.count;
    if (slot !== last) {
      const d = this.dimension;
      this.data.copyWithin(slot * d, last * d, (last + 1) * d);
      this.rowids[slot] = this.rowids[last];
      this.slotOf.set(this.rowids[slot], slot);
    }
    this.slotOf.delete(rowid);
    if (this.count < this.rowids.length / 4 && this.rowids.length > 64) this.shrink();
    return true;
  }

  search(query: Int8Array, k: number): MatrixHit[] {
    const n = Math.min(k, this.count);
    if (n === 0) return [];
    const m = exactSearch(this.data.subarray(0, this.count * this.dimension), query, this.dimension, n, MetricKind.Cos, 1);
    const out: MatrixHit[] = [];
    for (let i = 0; i < m.keys.length; i++) {
      out.push({ rowid: this.rowids[Number(m.keys[i])], similarity: 1 - m.distances[i] });
    }
    return out;
  }

  private grow(): void {
    this.resize(this.rowids.length * 2);
  }

  private shrink(): void {
    this.resize(Math.max(64, this.rowids.length / 2));
  }

  private resize(rows: number): void {
    const data = new Int8Array(rows * this.dimension);
    data.set(this.data.subarray(0, this.count * this.dimension));
    const rowids = new Float64Array(rows);
    rowids.set(this.rowids.subarray(0, this.count));
    this.data = data;
    this.rowids = rowids;
  }
}

export class VectorMatrix {
  private readonly kinds = new Map<string, KindMatrix>();

  constructor(readonly dimension: number) {}

  size(): number {
    let n = 0;
    for (const m of this.kinds.values()) n += m.count;
    return n;
  }

  /** Adds or replaces one item's 8-bit codes (the bytes after quantizeDirection's 4-byte scale). */
  put(rowid: number, kind: string, codes: Int8Array): void {
    if (codes.length !== this.dimension) {
      throw new Error(`a ${codes.length}-dimensional vector cannot join a ${this.dimension}-dimensional matrix`);
    }
    for (const [k, m] of this.kinds) if (k !== kind) m.remove(rowid);
    let m = this.kinds.get(kind);
    if (!m) {
      m = new KindMatrix(this.dimension);
      this.kinds.set(kind, m);
    }
    m.put(rowid, codes);
  }

  remove(rowid: number): void {
    for (const m of this.kinds.values()) if (m.remove(rowid)) return;
  }

  /** The `k` nearest items of the given kinds (all when null), best first; ties go to the older item. */
  search(query: Float32Array, k: number, kinds: readonly string[] | null): MatrixHit[] {
    const codes = toCodes(query);
    if (!codes) return [];
    const hits: MatrixHit[] = [];
    for (const kind of kinds ?? this.kinds.keys()) hits.push(...(this.kinds.get(kind)?.search(codes, k) ?? []));
    return hits.sort((a, b) => b.similarity - a.similarity || a.rowid - b.rowid).slice(0, k);
  }
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
