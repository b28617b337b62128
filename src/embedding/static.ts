/**
 * The word-vector tier: the mean of pretrained word vectors (fastText, ConceptNet Numberbatch) over the
 * shared tokenizer's tokens. Multiword terms are looked up first, Numberbatch-style ("new york" →
 * `new_york`, up to three words), so phrases with a vector of their own use it.
 *
 * A text without any known word gets an all-zero vector, which callers must skip (see vector-math.ts).
 */
import {
  EMBEDDING_SPECIFICATION_VERSION,
  type EmbeddingInfo,
  type EmbeddingInput,
  type EmbeddingProvider,
} from "./spi.js";
import { tokenize } from "./text.js";
import { textsOf } from "./text-only.js";
import { l2Normalize } from "./vector-math.js";
import { type LoadOptions, loadWordVectors, type WordVectors } from "./word-vectors.js";

const MAX_PHRASE = 3;

export class StaticEmbedder implements EmbeddingProvider {
  readonly specificationVersion = EMBEDDING_SPECIFICATION_VERSION;
  readonly name = "static";
  private readonly details: EmbeddingInfo;

  constructor(private readonly vectors: WordVectors) {
    const files = vectors.files.map((f) => `${f.name}:${f.size}:${f.mtimeMs}`).join("+");
    this.details = {
      dimension: vectors.dimension,
      fingerprint: `static:${files}:d${vectors.dimension}`,
      modalities: ["text"],
    };
  }

  /** Streams the files in `paths` into one vocabulary; see word-vectors.ts for the formats. */
  static async load(paths: string[], opts?: LoadOptions): Promise<StaticEmbedder> {
    return new StaticEmbedder(await loadWordVectors(paths, opts));
  }

  get vocabularySize(): number {
    return this.vectors.rows.size;
  }

  info(): EmbeddingInfo {
    return this.details;
  }

  async embed(inputs: EmbeddingInput[]): Promise<Float32Array[]> {
    return textsOf(this.name, inputs).map((text) => this.vector(text));
  }

  vector(text: string): Float32Array {
    const { dimension: d, rows, data } = this.vectors;
    const out = new Float32Array(d);
    const tokens = tokenize(text);
    for (let i = 0; i < tokens.length; ) {
      let row: number | undefined;
      let used = 1;
      for (let n = Math.min(MAX_PHRASE, tokens.length - i); n >= 1 && row === undefined; n--) {
        row = rows.get(n === 1 ? tokens[i] : tokens.slice(i, i + n).join("_"));
        used = n;
      }
      if (row !== undefined) {
        const base = row * d;
        for (let j = 0; j < d; j++) out[j] += data[base + j];
      }
      i += used;
    }
    // The mean and the sum point the same way; normalising makes them equal.
    return l2Normalize(out);
  }
}
