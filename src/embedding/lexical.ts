/**
 * The lexical tier: a TF-style bag of features hashed into a fixed number of dimensions, so it needs no
 * model, is always available, and its vectors can live in a fixed-width vec0 column next to those of
 * real models.
 *
 * Features, all from the shared tokenizer's view of the text:
 * - whole tokens (jieba words for CJK, lower-cased words for Latin text, stop words already removed);
 * - character n-grams of alphabetic words with boundary marks ("<paint", "int>"), weighted below whole
 *   words, so inflections ("painting" / "painted") and typos still overlap;
 * - CJK character bigrams of each CJK run, so a word that jieba cut differently in the query and in the
 *   document still matches.
 *
 * Each feature is hashed to a dimension and a sign (signed feature hashing: collisions cancel out in
 * expectation instead of adding up), its weight is `kind weight × (1 + ln tf)`, and the vector is L2
 * normalised, so the dot product is the cosine.
 *
 * No IDF in stored vectors: a fixed vector space cannot follow corpus statistics without re-embedding
 * everything whenever they move, and no frequency table ships with the project. The search adds it on the
 * query side instead (`vector(text, tokenWeight)`, see retrieval/lexical-query.ts): weighting the query's
 * features by the index's IDF weights each shared feature by it in the dot product, with no re-embedding.
 */
import { createHash } from "node:crypto";
import { EmbeddingError } from "./errors.js";
import {
  EMBEDDING_SPECIFICATION_VERSION,
  type EmbeddingInfo,
  type EmbeddingInput,
  type EmbeddingProvider,
} from "./spi.js";
import { STOP_WORDS } from "./stopwords.js";
import { cjkRuns, tokenize } from "./text.js";
import { textsOf } from "./text-only.js";
import { l2Normalize } from "./vector-math.js";

export interface LexicalOptions {
  /** Vector width; a power of two. Wider means fewer collisions and more storage. */
  dimension: number;
  /** Weight of a whole token. */
  wordWeight: number;
  /** Weight of one character n-gram of an alphabetic word. */
  ngramWeight: number;
  /** Shortest and longest n-gram, counting the boundary marks. */
  ngramMin: number;
  ngramMax: number;
  /** Weight of one CJK character bigram. */
  cjkBigramWeight: number;
}

/**
 * Chosen on the LoCoMo development split (turns as documents, questions of categories 1–4, recall@10 of
 * the vector alone): words only 0.41, with n-grams at 0.25 / 0.4 / 0.6 → 0.46 / 0.47 / 0.47; 2048 dims
 * added under 0.01, not worth twice the storage.
 */
export const LEXICAL_DEFAULTS: Readonly<LexicalOptions> = {
  dimension: 1024,
  wordWeight: 1,
  ngramWeight: 0.4,
  ngramMin: 3,
  ngramMax: 5,
  cjkBigramWeight: 0.5,
};

/** Bump when the feature extraction or hashing changes, so stored vectors are re-embedded. */
const VERSION = "hash-v1";
const ALPHABETIC = /\p{Script=Latin}|\p{Script=Cyrillic}|\p{Script=Greek}/u;

export class LexicalEmbedder implements EmbeddingProvider {
  readonly specificationVersion = EMBEDDING_SPECIFICATION_VERSION;
  readonly name = "lexical";
  private readonly opts: LexicalOptions;
  private readonly fingerprint: string;

  constructor(options: Partial<LexicalOptions> = {}) {
    this.opts = { ...LEXICAL_DEFAULTS, ...options };
    const { dimension } = this.opts;
    if (!Number.isInteger(dimension) || dimension < 2 || (dimension & (dimension - 1)) !== 0) {
      throw new EmbeddingError({
        code: "embedding_config",
        message: `lexical embedding dimension must be a power of two, got ${dimension}`,
      });
    }
    this.fingerprint = lexicalFingerprint(this.opts);
  }

  info(): EmbeddingInfo {
    return { dimension: this.opts.dimension, fingerprint: this.fingerprint, modalities: ["text"] };
  }

  async embed(inputs: EmbeddingInput[]): Promise<Float32Array[]> {
    return textsOf(this.name, inputs).map((text) => this.vector(text));
  }

  /**
   * The vector of one text; all zeros when the text has no feature (see vector-math.ts). `tokenWeight`
   * scales the features each token brings (the word and its n-grams; a CJK bigram takes the largest
   * weight of the tokens it lies in, else 1): searches weight a query's tokens by their rarity. Stored
   * vectors are computed without it.
   */
  vector(text: string, tokenWeight?: (token: string) => number): Float32Array {
    const v = new Float32Array(this.opts.dimension);
    for (const [feature, { weight, tf }] of this.features(text, tokenWeight)) {
      const h = hash32(feature);
      const value = weight * (1 + Math.log(tf));
      v[h & (this.opts.dimension - 1)] += h & 0x80000000 ? -value : value;
    }
    return l2Normalize(v);
  }

  /** Features with their weight (kind weight × token weight, the largest when tokens share one) and count. */
  private features(text: string, tokenWeight?: (token: string) => number): Map<string, { weight: number; tf: number }> {
    const out = new Map<string, { weight: number; tf: number }>();
    const add = (feature: string, weight: number) => {
      const f = out.get(feature);
      if (!f) out.set(feature, { weight, tf: 1 });
      else {
        f.tf++;
        f.weight = Math.max(f.weight, weight);
      }
    };
    const { wordWeight, ngramWeight, ngramMin, ngramMax, cjkBigramWeight } = this.opts;
    const tokens = tokenize(text);
    for (const token of tokens) {
      const scale = tokenWeight?.(token) ?? 1;
      add(`w:${token}`, wordWeight * scale);
      if (ngramWeight > 0 && ALPHABETIC.test(token)) {
        const marked = `<${token}>`;
        for (let n = ngramMin; n <= ngramMax && n < marked.length; n++) {
          for (let i = 0; i + n <= marked.length; i++) add(`g:${marked.slice(i, i + n)}`, ngramWeight * scale);
        }
      }
    }
    if (cjkBigramWeight > 0) {
      for (const run of cjkRuns(text)) {
        const chars = Array.from(run);
        for (let i = 0; i + 1 < chars.length; i++) {
          // A bigram with a stop character ("我的") says little and would only add noise.
          if (STOP_WORDS.has(chars[i]) || STOP_WORDS.has(chars[i + 1])) continue;
          const bigram = `${chars[i]}${chars[i + 1]}`;
          add(`b:${bigram}`, cjkBigramWeight * (tokenWeight ? bigramScale(bigram, tokens, tokenWeight) : 1));
        }
      }
    }
    return out;
  }
}

/** The largest weight of the tokens a CJK bigram lies in; 1 when it spans a word boundary. */
function bigramScale(bigram: string, tokens: readonly string[], tokenWeight: (token: string) => number): number {
  let scale = 0;
  for (const t of tokens) if (t.length >= 2 && t.includes(bigram)) scale = Math.max(scale, tokenWeight(t));
  return scale || 1;
}

/** `lexical:hash-v1:d1024`, plus a digest of the weights when they differ from the defaults. */
function lexicalFingerprint(opts: LexicalOptions): string {
  const base = `lexical:${VERSION}:d${opts.dimension}`;
  const { dimension: _d, ...weights } = opts;
  const { dimension: _dd, ...defaults } = LEXICAL_DEFAULTS;
  const same = (Object.keys(weights) as (keyof typeof weights)[]).every((k) => weights[k] === defaults[k]);
  if (same) return base;
  return `${base}:${createHash("sha256").update(JSON.stringify(weights)).digest("hex").slice(0, 8)}`;
}

/** FNV-1a over UTF-16 code units with murmur3's finaliser, so low and high bits are both well mixed. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
