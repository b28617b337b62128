/**
 * Small vector helpers shared by the embedding providers.
 *
 * A provider that finds nothing to embed in a text (no known word, no token) returns an all-zero vector
 * instead of throwing, so one empty item never fails a batch. Such a vector has no direction: cosine
 * against it is undefined, so callers must test it with `isZeroVector` and skip it (not index it, not
 * search with it) rather than store it.
 */

/** Scales `v` in place to unit length; a zero vector stays zero. Returns `v`. */
export function l2Normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  if (sum === 0) return v;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] *= inv;
  return v;
}

/** True when `v` carries no information (see the module comment). */
export function isZeroVector(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}

/**
 * An 8-bit copy of `v`'s direction for fast rescoring: 4 bytes of float32 scale, then one signed byte per
 * dimension. Cosine computed from it is within about 1 % of the exact value.
 */
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
  const scale = q.readFloatLE(0);
  const codes = new Int8Array(q.buffer, q.byteOffset + 4, q.length - 4);
  let dot = 0;
  let qq = 0;
  for (let i = 0; i < query.length; i++) {
    dot += query[i] * codes[i];
    qq += query[i] * query[i];
  }
  return qq === 0 ? 0 : (dot * scale) / Math.sqrt(qq);
}
