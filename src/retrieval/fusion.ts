/**
 * Hybrid ranking: BM25 and cosine similarity live on unrelated scales (BM25 is unbounded and depends on
 * the corpus; cosine of a lexical vector rarely exceeds 0.5), so each is divided by its maximum over
 * this query's candidates before the weighted sum. A weight then means the same thing for every query.
 */
import { HomeAgentError } from "../util/errors.js";

export interface Weights {
  bm25: number;
  vector: number;
}

/**
 * Chosen on the LoCoMo development split (recall@10, lexical vectors): BM25 weight 0.3 / 0.5 / 0.6 / 0.7 /
 * 0.8 / 1.0 → 0.581 / 0.618 / 0.632 / 0.636 / 0.631 / 0.613. Since the lexical tier weights queries by IDF
 * and pivots lengths (lexical-query.ts) its vectors earn more: 0.55 / 0.6 / 0.65 / 0.7 → 0.662 / 0.664 /
 * 0.662 / 0.658; 0.65 because Chinese queries lean more on BM25 (a known-item check in Chinese: MRR 0.646 at
 * 0.6, 0.651 at 0.65). A real embedding model may earn more weight; callers can pass their own.
 */
export const DEFAULT_WEIGHTS: Readonly<Weights> = { bm25: 0.65, vector: 0.35 };

export interface Candidate {
  rowid: number;
  /** BM25 score, 0 when the item matches no query token. */
  bm25: number;
  /** Cosine similarity in the query's vector space; null when the item has no vector there. */
  vector: number | null;
  /** What the vector component ranks by when it is not the cosine itself (the lexical tier's pivot). */
  vectorRank?: number;
  /** Its vector is still to be computed (written moments ago, or not yet re-embedded). */
  pending?: boolean;
}

export interface Fused extends Candidate {
  score: number;
}

/**
 * Scores every candidate in place (negative similarities count as 0) and returns them, unordered. A candidate whose vector is pending
 * is ranked by the component it has: its vector component is taken to be as high as its BM25 one. Counting
 * it as 0 capped a fresh exact keyword match at the BM25 weight while vector-only near-misses, scaled
 * against the best of them, reached the vector weight, so the match could drop out of the top k until its
 * vector was written.
 */
export function fuse(candidates: Iterable<Candidate>, weights: Weights): Fused[] {
  const list = [...candidates];
  let maxBm25 = 0;
  let maxVector = 0;
  for (const c of list) {
    if (c.bm25 > maxBm25) maxBm25 = c.bm25;
    const v = rankOf(c);
    if (v !== null && v > maxVector) maxVector = v;
  }
  // The candidates become the fused rows (no copy of each: a search fuses a few hundred per call).
  const fused = list as Fused[];
  for (const c of fused) {
    const bm25 = maxBm25 > 0 ? c.bm25 / maxBm25 : 0;
    const v = rankOf(c);
    const vector = c.pending ? bm25 : maxVector > 0 && v !== null && v > 0 ? v / maxVector : 0;
    c.score = weights.bm25 * bm25 + weights.vector * vector;
  }
  return fused;
}

function rankOf(c: Candidate): number | null {
  return c.vector === null ? null : (c.vectorRank ?? c.vector);
}

export function validWeights(w: Weights): Weights {
  for (const [name, v] of Object.entries(w)) {
    if (!Number.isFinite(v) || v < 0) {
      throw new HomeAgentError({
        code: "invalid_argument",
        message: `search weight "${name}" must be a number ≥ 0, got ${v}`,
      });
    }
  }
  if (w.bm25 + w.vector === 0) {
    throw new HomeAgentError({ code: "invalid_argument", message: "search weights bm25 and vector cannot both be 0" });
  }
  return w;
}
