/**
 * Short sketches of 8-bit vectors for a coarse first pass over large matrices (vector-matrix.ts): each
 * dimension is added, with a fixed pseudo-random sign, into one of `dimension / 8` buckets (a count
 * sketch, which keeps inner products in expectation) and the buckets are scaled back to signed bytes.
 * Scanning sketches costs an eighth of scanning the vectors; the best few hundred are then rescored
 * exactly, so a sketch only has to keep the true neighbours among them, not order them.
 */

const SEED = 0x9e3779b9;

export class Sketcher {
  readonly width: number;
  private readonly bucket: Int32Array;
  private readonly sign: Int8Array;
  private readonly sums: Int32Array;

  constructor(readonly dimension: number) {
    this.width = Math.max(16, Math.ceil(dimension / 8));
    this.bucket = new Int32Array(dimension);
    this.sign = new Int8Array(dimension);
    let s = SEED;
    const next = () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = Math.imul(s ^ (s >>> 15), s | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return (t ^ (t >>> 14)) >>> 0;
    };
    // A shuffled assignment, so neighbouring dimensions (often correlated) land in different buckets.
    const order = Array.from({ length: dimension }, (_, i) => i);
    for (let i = dimension - 1; i > 0; i--) {
      const j = next() % (i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (let i = 0; i < dimension; i++) {
      this.bucket[order[i]] = i % this.width;
      this.sign[i] = next() & 1 ? 1 : -1;
    }
    this.sums = new Int32Array(this.width);
  }

  /** Writes the sketch of `codes` into `out` at `offset`. */
  sketch(codes: Int8Array, out: Int8Array, offset = 0): void {
    const { sums, bucket, sign } = this;
    sums.fill(0);
    for (let i = 0; i < this.dimension; i++) sums[bucket[i]] += sign[i] * codes[i];
    let max = 0;
    for (let j = 0; j < this.width; j++) max = Math.max(max, Math.abs(sums[j]));
    for (let j = 0; j < this.width; j++) out[offset + j] = max === 0 ? 0 : Math.round((sums[j] / max) * 127);
  }
}
