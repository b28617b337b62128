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
import { HomeAgentError } from "../util/errors.js";
import { Sketcher } from "./sketch.js";

/**
 * Up to this many rows a kind's matrix is scanned exactly (≈ 1.3 ms at 1024 dimensions). Above it the
 * sketches are scanned first and the best RERANK_FACTOR × k (at least MIN_RERANK) rows rescored exactly,
 * which keeps 100k rows within a few milliseconds (measured in the issue-8 note).
 */
const EXACT_MAX = 32_768;
const RERANK_FACTOR = 8;
const MIN_RERANK = 256;

export interface MatrixHit {
  rowid: number;
  /** Cosine similarity, -1 … 1 (of the 8-bit codes). */
  similarity: number;
}

/**
 * A query vector by its nonzero dimensions: a lexical query has a few dozen of 1024, so rescoring a row
 * costs that many steps instead of the full width. The sum runs in the same order over the same nonzero
 * terms as a full loop would, so the cosine is the same number.
 */
interface QueryDims {
  dims: Int32Array;
  values: Float32Array;
  /** The query's length. */
  norm: number;
}

function queryDims(query: Float32Array): QueryDims {
  let n = 0;
  let qq = 0;
  for (let i = 0; i < query.length; i++) {
    if (query[i] !== 0) n++;
    qq += query[i] * query[i];
  }
  const dims = new Int32Array(n);
  const values = new Float32Array(n);
  for (let i = 0, j = 0; i < query.length; i++) {
    if (query[i] !== 0) {
      dims[j] = i;
      values[j++] = query[i];
    }
  }
  return { dims, values, norm: Math.sqrt(qq) };
}

class KindMatrix {
  data: Int8Array;
  sketches: Int8Array;
  rowids: Float64Array;
  /** Per slot: the factor that turns its codes back into a unit vector (quantizeDirection's scale). */
  scales: Float32Array;
  count = 0;
  readonly slotOf = new Map<number, number>();
  private readonly dimension: number;

  constructor(private readonly sketcher: Sketcher) {
    this.dimension = sketcher.dimension;
    this.data = new Int8Array(this.dimension * 64);
    this.sketches = new Int8Array(sketcher.width * 64);
    this.rowids = new Float64Array(64);
    this.scales = new Float32Array(64);
  }

  put(rowid: number, codes: Int8Array, scale: number): void {
    let slot = this.slotOf.get(rowid);
    if (slot === undefined) {
      if (this.count === this.rowids.length) this.grow();
      slot = this.count++;
      this.slotOf.set(rowid, slot);
      this.rowids[slot] = rowid;
    }
    this.data.set(codes, slot * this.dimension);
    this.scales[slot] = scale;
    this.sketcher.sketch(codes, this.sketches, slot * this.sketcher.width);
  }

  /** Cosine of the query with the row in `slot`, as cosineQuantized computes it from the stored copy. */
  cosine(query: QueryDims, slot: number): number {
    const { dims, values, norm } = query;
    const data = this.data;
    const at = slot * this.dimension;
    let dot = 0;
    for (let j = 0; j < dims.length; j++) dot += values[j] * data[at + dims[j]];
    return norm === 0 ? 0 : (dot * this.scales[slot]) / norm;
  }

  remove(rowid: number): boolean {
    const slot = this.slotOf.get(rowid);
    if (slot === undefined) return false;
    const last = --this.count;
    if (slot !== last) {
      const d = this.dimension;
      const w = this.sketcher.width;
      this.data.copyWithin(slot * d, last * d, (last + 1) * d);
      this.sketches.copyWithin(slot * w, last * w, (last + 1) * w);
      this.rowids[slot] = this.rowids[last];
      this.scales[slot] = this.scales[last];
      this.slotOf.set(this.rowids[slot], slot);
    }
    this.slotOf.delete(rowid);
    if (this.count < this.rowids.length / 4 && this.rowids.length > 64) this.shrink();
    return true;
  }

  search(query: Int8Array, querySketch: Int8Array, k: number): MatrixHit[] {
    const n = Math.min(k, this.count);
    if (n === 0) return [];
    const d = this.dimension;
    if (this.count <= EXACT_MAX) return this.hits(scan(this.data.subarray(0, this.count * d), query, d, n), null);
    const w = this.sketcher.width;
    const coarse = scan(
      this.sketches.subarray(0, this.count * w),
      querySketch,
      w,
      Math.max(MIN_RERANK, RERANK_FACTOR * n),
    );
    const slots = Array.from(coarse.keys, Number);
    const rows = new Int8Array(slots.length * d);
    for (let i = 0; i < slots.length; i++) rows.set(this.data.subarray(slots[i] * d, (slots[i] + 1) * d), i * d);
    return this.hits(scan(rows, query, d, n), slots);
  }

  private hits(m: { keys: BigUint64Array; distances: Float32Array }, slots: number[] | null): MatrixHit[] {
    const out: MatrixHit[] = [];
    for (let i = 0; i < m.keys.length; i++) {
      const slot = slots ? slots[Number(m.keys[i])] : Number(m.keys[i]);
      out.push({ rowid: this.rowids[slot], similarity: 1 - m.distances[i] });
    }
    return out;
  }

  /** Makes room for `rows` rows in all, so a bulk load allocates once. */
  reserve(rows: number): void {
    if (rows > this.rowids.length) this.resize(rows);
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
    const sketches = new Int8Array(rows * this.sketcher.width);
    sketches.set(this.sketches.subarray(0, this.count * this.sketcher.width));
    this.sketches = sketches;
    const rowids = new Float64Array(rows);
    rowids.set(this.rowids.subarray(0, this.count));
    const scales = new Float32Array(rows);
    scales.set(this.scales.subarray(0, this.count));
    this.data = data;
    this.rowids = rowids;
    this.scales = scales;
  }
}

export class VectorMatrix {
  private readonly kinds = new Map<string, KindMatrix>();
  private readonly queryDims = new WeakMap<Float32Array, QueryDims>();
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
  private dimsOf(query: Float32Array): QueryDims {
    let q = this.queryDims.get(query);
    if (!q) {
      q = queryDims(query);
      this.queryDims.set(query, q);
    }
    return q;
  }

  remove(rowid: number): void {
    for (const m of this.kinds.values()) if (m.remove(rowid)) return;
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
    const sketch = new Int8Array(this.sketcher.width);
    this.sketcher.sketch(codes, sketch);
    const hits: MatrixHit[] = [];
    for (const kind of kinds ?? this.kinds.keys()) hits.push(...(this.kinds.get(kind)?.search(codes, sketch, k) ?? []));
    return hits.sort((a, b) => b.similarity - a.similarity || a.rowid - b.rowid).slice(0, k);
  }
}

function unitScale(codes: Int8Array): number {
  let sum = 0;
  for (let i = 0; i < codes.length; i++) sum += codes[i] * codes[i];
  return sum === 0 ? 0 : 1 / Math.sqrt(sum);
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

/** Exact cosine search on signed bytes with usearch's SIMD kernels, on this thread. */
function scan(data: Int8Array, query: Int8Array, dimension: number, k: number) {
  return exactSearch(data, query, dimension, Math.min(k, data.length / dimension), MetricKind.Cos, 1);
}
