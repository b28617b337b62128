/** The 8-bit vector copies that rescore keyword candidates: how far their cosine is from the exact one. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { cosineQuantized, quantizeDirection } from "./quantize.js";

test("the 8-bit vector copy gives cosine within 1 %", () => {
  let seed = 7;
  const rnd = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647 - 0.5;
  };
  for (let n = 0; n < 20; n++) {
    const a = Float32Array.from({ length: 256 }, rnd);
    const b = Float32Array.from({ length: 256 }, (_, i) => a[i] + rnd());
    let dot = 0;
    let na = 0;
    let nb = 0;
    for (let i = 0; i < 256; i++) {
      dot += a[i] * b[i];
      na += a[i] * a[i];
      nb += b[i] * b[i];
    }
    const exact = dot / Math.sqrt(na * nb);
    assert.ok(Math.abs(cosineQuantized(a, quantizeDirection(b)) - exact) < 0.01);
  }
});
