/**
 * An inverted index over the nonzero dimensions of a kind's 8-bit rows, for an exact nearest-neighbour
 * search that costs the query's postings instead of the whole matrix. The lexical tier's vectors are
 * sparse: in bench/scale-corpus.ts a row has ≈ 72 nonzero codes of 1024 and a query ≈ 18, so a search
 * reads ≈ 18 lists of ≈ 7 % of the rows. At 30k rows a SIMD scan of every row costs ≈ 2 ms (it reads
 * 30 MB); these lists cost ≈ 0.1 ms. The cosine is the one the scan computes: the same integer dot product
 * of the same codes over the same norms.
 *
 * Dense vectors (a model's embeddings) would make every list as long as the matrix; vector-matrix.ts
 * stops keeping postings for a kind whose rows turn out dense.
 */

/**
 * A vector by its nonzero entries: a lexical query has ≈ 18 of 1024, so a dot product over them costs that
 * many steps. Summed in the same order over the same nonzero terms as a full loop, it gives the same number.
 */
export interface Nonzero {
  dims: Int32Array;
  values: Float64Array;
  /** The vector's length. */
  norm: number;
}

export function nonzero(v: ArrayLike<number>): Nonzero {
  let n = 0;
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== 0) n++;
    sum += v[i] * v[i];
  }
  const dims = new Int32Array(n);
  const values = new Float64Array(n);
  for (let i = 0, j = 0; i < v.length; i++) {
    if (v[i] !== 0) {
      dims[j] = i;
      values[j++] = v[i];
    }
  }
  return { dims, values, norm: Math.sqrt(sum) };
}

export class Postings {
  private slots: Int32Array[];
  private codes: Int8Array[];
  private readonly lengths: Int32Array;
  /** A search's dot products, one per slot (reused: a search allocates nothing per row). */
  private acc = new Int32Array(0);
  private entries = 0;

  constructor(readonly dimension: number) {
    this.slots = Array.from({ length: dimension }, () => new Int32Array(4));
    this.codes = Array.from({ length: dimension }, () => new Int8Array(4));
    this.lengths = new Int32Array(dimension);
  }

  /** Entries held: one per nonzero code of every row. */
  get size(): number {
    return this.entries;
  }

  add(slot: number, row: Int8Array): void {
    for (let d = 0; d < row.length; d++) {
      if (row[d] === 0) continue;
      let n = this.lengths[d];
      if (n === this.slots[d].length) this.grow(d);
      this.slots[d][n] = slot;
      this.codes[d][n++] = row[d];
      this.lengths[d] = n;
      this.entries++;
    }
  }

  /** Drops the entries of `slot`, whose codes are `row`. */
  remove(slot: number, row: Int8Array): void {
    for (let d = 0; d < row.length; d++) {
      if (row[d] === 0) continue;
      const at = this.find(d, slot);
      if (at < 0) continue;
      const last = --this.lengths[d];
      this.slots[d][at] = this.slots[d][last];
      this.codes[d][at] = this.codes[d][last];
      this.entries--;
    }
  }

  /** The row whose codes are `row` moved from slot `from` to slot `to`. */
  move(from: number, to: number, row: Int8Array): void {
    for (let d = 0; d < row.length; d++) {
      if (row[d] === 0) continue;
      const at = this.find(d, from);
      if (at >= 0) this.slots[d][at] = to;
    }
  }

  /**
   * The dot product of the query with each of the first `slots` slots (0 for a slot that shares no nonzero
   * dimension with it). The array is this index's scratch: valid until the next call.
   */
  dots(query: Nonzero, slots: number): Int32Array {
    if (this.acc.length < slots) this.acc = new Int32Array(Math.max(slots, this.acc.length * 2));
    const acc = this.acc;
    acc.fill(0, 0, slots);
    for (let j = 0; j < query.dims.length; j++) {
      const d = query.dims[j];
      const q = query.values[j];
      const list = this.slots[d];
      const codes = this.codes[d];
      for (let i = 0, n = this.lengths[d]; i < n; i++) acc[list[i]] += q * codes[i];
    }
    return acc;
  }

  private find(d: number, slot: number): number {
    const list = this.slots[d];
    for (let i = 0, n = this.lengths[d]; i < n; i++) if (list[i] === slot) return i;
    return -1;
  }

  private grow(d: number): void {
    const slots = new Int32Array(this.slots[d].length * 2);
    slots.set(this.slots[d]);
    const codes = new Int8Array(this.codes[d].length * 2);
    codes.set(this.codes[d]);
    this.slots[d] = slots;
    this.codes[d] = codes;
  }
}
