/**
 * 8-bit vector copies for rescoring keyword candidates by rowid: a plain table row of one byte per
 * dimension is read far faster than a vec0 row (see vector-index.ts), and cosine computed from it is
 * within about 1 % of the exact value, which is well below what changes a fused ranking.
 */

/** `v`'s direction as 4 bytes of float32 scale, then one signed byte per dimension. */
export function quantizeDirection(v: Float32Array): Buffer {
  let sum = 0;
  let max = 0;
  for (let i = 0; i < v.length; i++) {
    sum += v[i] * v[i];
    max = Math.max(max, Math.abs(v[i]));
  }
  const out = Buffer.alloc(4 + v.length);
  if (max === 0) return out;
  const norm = Math.sqrt(sum);
  const scale = max / norm / 127;
  out.writeFloatLE(scale, 0);
  for (let i = 0; i < v.length; i++) out.writeInt8(Math.round(v[i] / norm / scale), 4 + i);
  return out;
}

/** Cosine similarity of `query` with a vector stored by quantizeDirection. */
export function cosineQuantized(query: Float32Array, q: Buffer): number {
  const scale = scaleOf(q);
  const codes = codesOf(q);
  let dot = 0;
  let qq = 0;
  for (let i = 0; i < query.length; i++) {
    dot += query[i] * codes[i];
    qq += query[i] * query[i];
  }
  return qq === 0 ? 0 : (dot * scale) / Math.sqrt(qq);
}

/** The unit vector stored by quantizeDirection (within its 8-bit precision); all zeros for a zero vector. */
export function dequantize(q: Buffer): Float32Array {
  const scale = q.readFloatLE(0);
  const out = new Float32Array(q.length - 4);
  for (let i = 0; i < out.length; i++) out[i] = q.readInt8(4 + i) * scale;
  return out;
}

/** The scale of a vector stored by quantizeDirection: codes × scale is its unit vector. */
export function scaleOf(q: Buffer): number {
  return q.readFloatLE(0);
}

/** The signed bytes of a vector stored by quantizeDirection (a view, not a copy). */
export function codesOf(q: Buffer): Int8Array {
  return new Int8Array(q.buffer, q.byteOffset + 4, q.length - 4);
}
