/**
 * The shapes SearchIndex takes and returns, apart from the class so its file holds only behaviour.
 */
import type { EmbeddingProvider } from "../embedding/spi.js";
import type { SearchFilter } from "./filter.js";
import type { Weights } from "./fusion.js";
import type { ItemInput } from "./keyword-index.js";
import type { ReembedOptions, ReembedProgress } from "./reembed.js";

export interface SearchIndexOptions {
  /** null or absent: keyword search only. */
  embedder?: EmbeddingProvider | null;
  /** Default weights of the two components (DEFAULT_WEIGHTS in fusion.ts: BM25 0.65, vector 0.35). */
  weights?: Weights;
  /** Start re-embedding automatically when the current space is incomplete (default true). */
  autoReembed?: boolean;
  reembed?: ReembedOptions;
  /** Called when embedding fails; the items stay searchable by keyword. */
  onError?: (err: Error) => void;
}

export interface SearchOptions {
  k?: number;
  filter?: SearchFilter;
  weights?: Partial<Weights>;
}

/** What SearchIndex.write hands its callback: synchronous writes inside the one transaction. */
export interface IndexWriter {
  upsert(items: readonly ItemInput[]): void;
  /** Returns how many of the ids existed. */
  remove(ids: readonly string[]): number;
}

export interface ListOptions extends SearchFilter {
  offset?: number;
  /** 1 … 10,000; default 100. */
  limit?: number;
  /** By ts; default "asc". */
  order?: "asc" | "desc";
}

export interface SearchHit {
  id: string;
  kind: string;
  text: string;
  ts: number;
  meta: Record<string, unknown>;
  /**
   * Fused score: weighted sum of both components, each divided by its maximum for this query (see fuse()
   * in fusion.ts for items whose vector is pending, and lexical-query.ts for the lexical tier's ranking).
   */
  score: number;
  /** Raw BM25 (higher is better, 0 = no query token in the item). */
  bm25: number;
  /** Cosine similarity with the query; null when the item has no vector in the current space. */
  vector: number | null;
}

export interface SearchStatus {
  items: number;
  fingerprint: string | null;
  dimension: number | null;
  /** "none": keyword search only; "partial": some items lack a vector in the current space. */
  vectors: "none" | "complete" | "partial";
  /** "exact": nearest vectors are found by scanning every vector of the space (see vector-matrix.ts). */
  vectorSearch: "exact" | null;
  reembed: ReembedProgress | null;
  lastError: string | null;
}
