/**
 * How alike two entity names are, for the merge loop: the larger of character-bigram Jaccard (catches
 * "北京市" / "北京", "New York" / "new york city") and the embedding cosine of the two entities (catches
 * "car" / "automobile" when the vector tier knows synonyms). Above MERGE_THRESHOLD the model is asked.
 */

export const MERGE_THRESHOLD = 0.75;

function bigrams(name: string): Set<string> {
  const chars = [...name.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim()];
  const out = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i] + chars[i + 1]);
  return out;
}

/** Jaccard similarity of the two names' character bigrams; 1 for equal names, 0 when one has no bigram. */
export function bigramJaccard(a: string, b: string): number {
  const na = a.normalize("NFKC").toLowerCase().trim();
  const nb = b.normalize("NFKC").toLowerCase().trim();
  if (na === "" || nb === "") return 0;
  if (na === nb) return 1;
  const sa = bigrams(na);
  const sb = bigrams(nb);
  if (sa.size === 0 || sb.size === 0) return 0;
  let shared = 0;
  for (const g of sa) if (sb.has(g)) shared++;
  return shared / (sa.size + sb.size - shared);
}

/** max(bigram Jaccard, cosine); a missing cosine (no vectors in a comparable space) counts as 0. */
export function entitySimilarity(a: string, b: string, cosine: number | null | undefined): number {
  return Math.max(bigramJaccard(a, b), cosine ?? 0);
}
