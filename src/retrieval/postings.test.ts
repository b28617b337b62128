/**
 * Nearest rows through the postings are the ones a full scan finds: same rows, same order, same cosine,
 * after rows are replaced and removed (which moves the last row of a kind into the gap), and when few
 * rows share a dimension with the query. Dense rows leave the postings and are scanned.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { VectorMatrix } from "./vector-matrix.js";

const D = 128;

function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

/** Signed byte codes with about `density` of them nonzero. */
function codes(rnd: () => number, density: number): Int8Array {
  const out = new Int8Array(D);
  for (let i = 0; i < D; i++) if (rnd() < density) out[i] = Math.round(rnd() * 254) - 127 || 1;
  return out;
}

/** The query as the matrix will quantize it: its largest value is 127, so its codes are its values. */
function query(c: Int8Array): Float32Array {
  const q = Float32Array.from(c);
  q[c.findIndex((x) => x !== 0)] = 127;
  return q;
}

/** Every row's cosine with the query, best first, the older row first among equals: the scan's order. */
function bruteForce(rows: Map<number, Int8Array>, q: Float32Array, k: number) {
  const norm = (v: ArrayLike<number>) => Math.sqrt(Array.from(v).reduce((s, x) => s + x * x, 0));
  return [...rows]
    .map(([rowid, r]) => {
      let dot = 0;
      for (let i = 0; i < D; i++) dot += q[i] * r[i];
      const n = norm(r) * norm(q);
      return { rowid, similarity: n === 0 ? 0 : dot / n };
    })
    .sort((a, b) => b.similarity - a.similarity || a.rowid - b.rowid)
    .slice(0, k);
}

function assertSame(got: { rowid: number; similarity: number }[], want: { rowid: number; similarity: number }[]) {
  assert.deepEqual(
    got.map((h) => h.rowid),
    want.map((h) => h.rowid),
  );
  for (const [i, h] of got.entries()) assert.ok(Math.abs(h.similarity - want[i].similarity) < 1e-6, `hit ${i}`);
}

/** Writes a row to the matrix and to the plain copy the brute force reads. */
function putBoth(m: VectorMatrix, rows: Map<number, Int8Array>, rowid: number, kind: string, c: Int8Array): void {
  rows.set(rowid, c);
  m.put(rowid, kind, c);
}

function removeBoth(m: VectorMatrix, rows: Map<number, Int8Array>, rowid: number): void {
  m.remove(rowid);
  rows.delete(rowid);
}

test("sparse rows: the postings find what a full scan finds, after replacements and removals", () => {
  const rnd = rng(11);
  const m = new VectorMatrix(D);
  const rows = new Map<number, Int8Array>();
  for (let rowid = 1; rowid <= 600; rowid++) putBoth(m, rows, rowid, "turn", codes(rnd, 0.06));
  for (let rowid = 1; rowid <= 600; rowid += 7) removeBoth(m, rows, rowid);
  for (let rowid = 3; rowid <= 600; rowid += 11) {
    if (rows.has(rowid)) putBoth(m, rows, rowid, "turn", codes(rnd, 0.06));
  }
  for (let i = 0; i < 50; i++) {
    const q = query(codes(rnd, 0.15));
    assertSame(m.search(q, 40, ["turn"]), bruteForce(rows, q, 40));
  }
});

test("a query few rows share a dimension with: then the orthogonal rows, oldest first, then the opposed ones", () => {
  const m = new VectorMatrix(D);
  const rows = new Map<number, Int8Array>();
  const rnd = rng(5);
  for (let rowid = 1; rowid <= 100; rowid++) {
    // Dimension 0 is nonzero in three rows only: one along the query, one against it, one beside it.
    const c = codes(rnd, 0.05);
    c[0] = rowid === 10 ? 90 : rowid === 20 ? -90 : rowid === 30 ? 1 : 0;
    putBoth(m, rows, rowid, "turn", c);
  }
  const q = new Float32Array(D);
  q[0] = 127;
  const hits = m.search(q, 100, ["turn"]);
  assertSame(hits, bruteForce(rows, q, 100));
  assert.deepEqual(
    hits.slice(0, 2).map((h) => h.rowid),
    [10, 30],
  );
  assert.equal(hits.at(-1)?.rowid, 20);
  assert.deepEqual(
    m.search(q, 5, ["turn"]).map((h) => h.rowid),
    [10, 30, 1, 2, 3],
  );
});

test("dense rows (a model's embeddings) are scanned, and found the same", () => {
  const rnd = rng(3);
  const m = new VectorMatrix(D);
  const rows = new Map<number, Int8Array>();
  for (let rowid = 1; rowid <= 300; rowid++) putBoth(m, rows, rowid, "doc", codes(rnd, 1));
  removeBoth(m, rows, 5);
  for (let i = 0; i < 10; i++) {
    const q = query(codes(rnd, 1));
    assertSame(m.search(q, 20, ["doc"]), bruteForce(rows, q, 20));
  }
});
