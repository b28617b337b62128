/**
 * Hybrid ranking: BM25 and cosine similarity live on unrelated scales (BM25 is unbounded and depends on
 * the corpus; cosine of a lexical vector rarely exceeds 0.5), so each is divided by its maximum over
 * this query's candidates before the weighted sum. A weight then means the same thing for every query.
 */

export interface Weights {
  bm25: number;
  vector: number;
}

/**
 * Chosen on the LoCoMo development split (recall@10, lexical vectors): BM25 weight 0.3 / 0.5 / 0.6 / 0.7 /
 * 0.8 / 1.0 → 0.581 / 0.618 / 0.632 / 0.636 / 0.631 / 0.613. A real embedding model may earn more weight;
 * callers can pass their own.
 */
export const DEFAULT_WEIGHTS: Readonly<Weights> = { bm25: 0.7, vector: 0.3 };

export interface Candidate {
  rowid: number;
  /** BM25 score, 0 when the item matches no query token. */
  bm25: number;
  /** Cosine similarity in the query's vector space; null when the item has no vector there. */
  vector: number | null;
}

export interface Fused extends Candidate {
  score: number;
}

/** Scores every candidate (negative similarities count as 0); unordered. */
export function fuse(candidates: Iterable<Candidate>, weights: Weights): Fused[] {
  const list = [...candidates];
  let maxBm25 = 0;
  let maxVector = 0;
  for (const c of list) {
    if (c.bm25 > maxBm25) maxBm25 = c.bm25;
    if (c.vector !== null && c.vector > maxVector) maxVector = c.vector;
  }
  return list.map((c) => ({
    ...c,
    score:
      (maxBm25 > 0 ? (weights.bm25 * c.bm25) / maxBm25 : 0) +
      (maxVector > 0 && c.vector !== null && c.vector > 0 ? (weights.vector * c.vector) / maxVector : 0),
  }));
}

export function validWeights(w: Weights): Weights {
  for (const [name, v] of Object.entries(w)) {
    if (!Number.isFinite(v) || v < 0) throw new Error(`search weight "${name}" must be a number ≥ 0, got ${v}`);
  }
  if (w.bm25 + w.vector === 0) throw new Error("search weights bm25 and vector cannot both be 0");
  return w;
}
