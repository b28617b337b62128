/** Rescoring by rowid reads the loaded matrix, and gives exactly the cosine of the stored 8-bit copy. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { codesOf, cosineQuantized, quantizeDirection, scaleOf } from "./quantize.js";
import { VectorMatrix } from "./vector-matrix.js";

test("a row's similarity from the matrix equals cosineQuantized of its stored copy, after rows move too", () => {
  const d = 16;
  let seed = 7;
  const rnd = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647 - 0.5;
  };
  const vector = () => Float32Array.from({ length: d }, rnd);
  const m = new VectorMatrix(d);
  const stored = new Map<number, Buffer>();
  for (let rowid = 1; rowid <= 100; rowid++) {
    const q = quantizeDirection(vector());
    stored.set(rowid, q);
    m.put(rowid, rowid % 3 ? "turn" : "doc", codesOf(q), scaleOf(q));
  }
  // Removing rows moves the last row of a kind into each gap: its scale must move with it.
  for (let rowid = 1; rowid <= 40; rowid++) {
    m.remove(rowid);
    stored.delete(rowid);
  }
  const query = vector();
  for (const [rowid, q] of stored) assert.equal(m.similarity(query, rowid), cosineQuantized(query, q), `row ${rowid}`);
  assert.equal(m.similarity(query, 1), undefined, "removed");
  assert.equal(m.similarity(query, 999), undefined, "never stored");
});
