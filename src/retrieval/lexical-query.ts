/**
 * Two query-time corrections that make the lexical tier's vectors (hashed bags of words, n-grams and CJK
 * bigrams, embedding/lexical.ts) rank like a term-weighting model. Both work on what is already stored,
 * so nothing is re-embedded. Measured on the LoCoMo development split (recall@10, /work/notes/issue8-locomo.md):
 *
 * - IDF on the query side. Each query feature is weighted by the index's IDF of the token it comes from,
 *   divided by the mean over the query's tokens (so a CJK bigram that spans a word boundary, weight 1,
 *   keeps its share). In the dot product a shared rare word then counts far more than a shared common
 *   one, as in BM25. The vector alone: 0.44 → 0.61; fused with BM25: 0.643 → 0.654.
 * - Pivoted length normalisation of the cosine (Singhal, Buckley & Mitra, 1996). A cosine divides by the
 *   document's norm, which grows with its length, so a short turn sharing one word with the question
 *   ("Wow, how'd the kids like it?") beats the longer turn that holds the answer. The cosine is multiplied
 *   by r / (1 − s + s·r), r = √(length / average length) (a bag's norm grows as the square root of its
 *   size), s = PIVOT_SLOPE: fused 0.654 → 0.662.
 *
 * Neither applies to a model's embeddings: their norm says nothing about length and their dimensions are
 * not words.
 */
import { LexicalEmbedder } from "../embedding/lexical.js";
import type { EmbeddingProvider } from "../embedding/spi.js";
import { tokenize } from "../embedding/text.js";
import { isZeroVector } from "../embedding/vector-math.js";

/**
 * Slope of the pivot: 0 multiplies by r, 1 leaves the cosine as it is. LoCoMo dev recall@10 (fusion
 * weights 0.6 / 0.65): 0 → 0.662 / 0.661, 0.1 → 0.662 / 0.662, 0.2 → 0.664 / 0.662, 0.4 → 0.662 / 0.660.
 */
export const PIVOT_SLOPE = 0.2;

/** The provider's vectors are bags of features whose query side this file may weight and pivot. */
export function isLexical(embedder: EmbeddingProvider | null): embedder is LexicalEmbedder {
  return embedder instanceof LexicalEmbedder;
}

/** The query's lexical vector with each token's features weighted by its relative IDF; null if it has none. */
export function lexicalQueryVector(
  embedder: LexicalEmbedder,
  text: string,
  idf: (token: string) => number,
): Float32Array | null {
  const weights = new Map<string, number>();
  for (const t of tokenize(text)) if (!weights.has(t)) weights.set(t, idf(t));
  if (weights.size === 0) return null;
  let sum = 0;
  for (const w of weights.values()) sum += w;
  const mean = sum / weights.size;
  const v = embedder.vector(text, (t) => (weights.get(t) ?? mean) / mean);
  return isZeroVector(v) ? null : v;
}

/** A cosine with the length bias taken out (see above); `lengthRatio` = the item's length / the average. */
export function pivoted(cosine: number, lengthRatio: number): number {
  const r = Math.sqrt(lengthRatio);
  return (cosine * r) / (1 - PIVOT_SLOPE + PIVOT_SLOPE * r);
}
