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
