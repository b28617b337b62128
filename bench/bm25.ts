/**
 * The comparison point for the LoCoMo harness: textbook Okapi BM25 (k1 1.2, b 0.75, Lucene's idf) over
 * raw text split on whitespace — lower-cased, punctuation trimmed from word edges, and nothing else: no
 * jieba, no stop words, no vectors. Implemented directly so it shares no code with the index it is
 * compared against.
 */
const K1 = 1.2;
const B = 0.75;
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

export function whitespaceTokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(EDGE_PUNCTUATION, ""))
    .filter(Boolean);
}

export class PlainBm25 {
  private readonly docs: Array<{ id: string; tf: Map<string, number>; length: number }> = [];
  private readonly df = new Map<string, number>();
  private totalLength = 0;

  add(id: string, text: string): void {
    const tokens = whitespaceTokens(text);
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    this.docs.push({ id, tf, length: tokens.length });
    this.totalLength += tokens.length;
  }

  /** Ids of the `k` best documents with a score above 0, best first. */
  search(query: string, k: number): string[] {
    const n = this.docs.length;
    const avgLength = this.totalLength / Math.max(1, n);
    const terms = [...new Set(whitespaceTokens(query))];
    const scored: Array<{ id: string; score: number }> = [];
    for (const doc of this.docs) {
      let score = 0;
      for (const t of terms) {
        const f = doc.tf.get(t);
        if (!f) continue;
        const df = this.df.get(t)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / avgLength));
      }
      if (score > 0) scored.push({ id: doc.id, score });
    }
    return scored
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map((s) => s.id);
  }
}
