/**
 * One item kind's rows of a vector space (vector-matrix.ts): one contiguous Int8Array of the 8-bit copies
 * (one byte per dimension), scanned exactly with usearch's SIMD kernels — or, while the rows are sparse as
 * the lexical tier's are, searched exactly through postings of their nonzero codes (postings.ts). Removing
 * a row moves the last row into its place, so a matrix never holds more than its live rows (plus growth
 * slack).
 */
import { exactSearch, MetricKind } from "usearch";
import { type Nonzero, Postings } from "./postings.js";
import type { Sketcher } from "./sketch.js";
import { type Scored, WorstFirstHeap } from "./top-heap.js";

/**
 * Up to this many rows a kind's matrix is scanned exactly (≈ 1.3 ms at 1024 dimensions). Above it the
 * sketches are scanned first and the best RERANK_FACTOR × k (at least MIN_RERANK) rows rescored exactly,
 * which keeps 100k rows within a few milliseconds (measured in the issue-8 note).
 */
const EXACT_MAX = 32_768;
const RERANK_FACTOR = 8;
const MIN_RERANK = 256;
/**
 * A kind keeps postings (postings.ts) while its rows average under 1/SPARSE_SHARE nonzero codes, judged
 * from MIN_ROWS_JUDGED rows on: the lexical tier's average ≈ 1/14, a model's embeddings are dense.
 */
const SPARSE_SHARE = 4;
const MIN_ROWS_JUDGED = 64;

export interface MatrixHit {
  rowid: number;
  /** Cosine similarity, -1 … 1 (of the 8-bit codes). */
  similarity: number;
}

export class KindMatrix {
  data: Int8Array;
  /** Kept for dense rows only (a sparse kind is searched through its postings): empty until then. */
  sketches = new Int8Array(0);
  rowids: Float64Array;
  /** Per slot: the factor that turns its codes back into a unit vector (quantizeDirection's scale). */
  scales: Float32Array;
  /** Per slot: the length of its code vector, for the cosine the postings compute. */
  norms: Float32Array;
  count = 0;
  readonly slotOf = new Map<number, number>();
  private readonly dimension: number;
  /** Kept while the rows are sparse (see SPARSE_SHARE); null once they turned out dense. */
  private postings: Postings | null;

  constructor(private readonly sketcher: Sketcher) {
    this.dimension = sketcher.dimension;
    this.data = new Int8Array(this.dimension * 64);
    this.rowids = new Float64Array(64);
    this.scales = new Float32Array(64);
    this.norms = new Float32Array(64);
    this.postings = new Postings(this.dimension);
  }

  put(rowid: number, codes: Int8Array, scale: number): void {
    let slot = this.slotOf.get(rowid);
    if (slot === undefined) {
      if (this.count === this.rowids.length) this.grow();
      slot = this.count++;
      this.slotOf.set(rowid, slot);
      this.rowids[slot] = rowid;
    } else this.postings?.remove(slot, this.row(slot));
    this.data.set(codes, slot * this.dimension);
    this.scales[slot] = scale;
    this.norms[slot] = codeNorm(codes);
    if (!this.postings) this.sketcher.sketch(codes, this.sketches, slot * this.sketcher.width);
    this.postings?.add(slot, codes);
    if (
      this.postings &&
      this.count >= MIN_ROWS_JUDGED &&
      this.postings.size > (this.count * this.dimension) / SPARSE_SHARE
    ) {
      this.becomeDense();
    }
  }

  /** The rows turned out dense: postings go, sketches of every row come (the scan of large matrices uses them). */
  private becomeDense(): void {
    this.postings = null;
    const w = this.sketcher.width;
    this.sketches = new Int8Array(this.rowids.length * w);
    for (let slot = 0; slot < this.count; slot++) this.sketcher.sketch(this.row(slot), this.sketches, slot * w);
  }

  private row(slot: number): Int8Array {
    return this.data.subarray(slot * this.dimension, (slot + 1) * this.dimension);
  }

  /** Cosine of the query with the row in `slot`, as cosineQuantized computes it from the stored copy. */
  cosine(query: Nonzero, slot: number): number {
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
    this.postings?.remove(slot, this.row(slot));
    if (slot !== last) {
      this.postings?.move(last, slot, this.row(last));
      this.norms[slot] = this.norms[last];
      const d = this.dimension;
      const w = this.sketcher.width;
      this.data.copyWithin(slot * d, last * d, (last + 1) * d);
      if (!this.postings) this.sketches.copyWithin(slot * w, last * w, (last + 1) * w);
      this.rowids[slot] = this.rowids[last];
      this.scales[slot] = this.scales[last];
      this.slotOf.set(this.rowids[slot], slot);
    }
    this.slotOf.delete(rowid);
    if (this.count < this.rowids.length / 4 && this.rowids.length > 64) this.shrink();
    return true;
  }

  /** `codes`: the query's nonzero codes, for the postings; a query sketch is made only when a scan needs one. */
  search(query: Int8Array, codes: Nonzero, k: number): MatrixHit[] {
    const n = Math.min(k, this.count);
    if (n === 0) return [];
    if (this.postings) return this.sparseSearch(this.postings, codes, n);
    const d = this.dimension;
    if (this.count <= EXACT_MAX) return this.hits(scan(this.data.subarray(0, this.count * d), query, d, n), null);
    const w = this.sketcher.width;
    const querySketch = new Int8Array(w);
    this.sketcher.sketch(query, querySketch);
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

  /**
   * The `n` nearest by the postings: the rows closer to the query than orthogonal, best first; when fewer
   * than `n` are, then the rows at cosine 0 (oldest first) and the opposed ones — the order of a full scan.
   */
  private sparseSearch(postings: Postings, q: Nonzero, n: number): MatrixHit[] {
    const dots = postings.dots(q, this.count);
    const { norms, rowids } = this;
    const closer = new WorstFirstHeap(n);
    let found = 0;
    for (let slot = 0; slot < this.count; slot++) {
      if (dots[slot] <= 0) continue;
      found++;
      closer.offer(rowids[slot], dots[slot] / (q.norm * norms[slot]));
    }
    if (found >= n) return closer.drain().map(toHit);
    const zeros: number[] = [];
    const opposed = new WorstFirstHeap(n);
    for (let slot = 0; slot < this.count; slot++) {
      if (dots[slot] === 0) zeros.push(rowids[slot]);
      else if (dots[slot] < 0) opposed.offer(rowids[slot], dots[slot] / (q.norm * norms[slot]));
    }
    zeros.sort((a, b) => a - b);
    return [...closer.drain(), ...zeros.map((doc) => ({ doc, score: 0 })), ...opposed.drain()].slice(0, n).map(toHit);
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
    if (!this.postings) {
      const sketches = new Int8Array(rows * this.sketcher.width);
      sketches.set(this.sketches.subarray(0, this.count * this.sketcher.width));
      this.sketches = sketches;
    }
    const rowids = new Float64Array(rows);
    rowids.set(this.rowids.subarray(0, this.count));
    const scales = new Float32Array(rows);
    scales.set(this.scales.subarray(0, this.count));
    const norms = new Float32Array(rows);
    norms.set(this.norms.subarray(0, this.count));
    this.norms = norms;
    this.data = data;
    this.rowids = rowids;
    this.scales = scales;
  }
}

function toHit(h: Scored): MatrixHit {
  return { rowid: h.doc, similarity: h.score };
}

/** The length of a row of 8-bit codes. */
export function codeNorm(codes: Int8Array): number {
  let sum = 0;
  for (let i = 0; i < codes.length; i++) sum += codes[i] * codes[i];
  return Math.sqrt(sum);
}

/** Exact cosine search on signed bytes with usearch's SIMD kernels, on this thread. */
export function scan(data: Int8Array, query: Int8Array, dimension: number, k: number) {
  return exactSearch(data, query, dimension, Math.min(k, data.length / dimension), MetricKind.Cos, 1);
}
