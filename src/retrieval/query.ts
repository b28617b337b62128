/**
 * A query prepared once per turn: its tokens and its vector are computed once and reused by every search
 * and scoring call of the turn (prune, documents, graph, related memory). The vector belongs to the
 * vector space it was computed in (and, for the lexical tier, to the index whose IDF weighted it); the
 * index recomputes it when the embedder has changed since.
 *
 * Callers see the text and tokens (PreparedQuery). Search and scoring take any object with a text (the
 * kernel's own PreparedQuery type, say); only one made by SearchIndex.prepare carries the vector.
 */
import { tokenize } from "../embedding/text.js";

export interface PreparedQuery {
  readonly text: string;
  /** The shared tokenizer's tokens of the text. */
  readonly tokens: readonly string[];
}

/** What search and scoring take: a text, or a query prepared once (or anything else with a text). */
export type QueryInput = string | { readonly text: string };

export class PreparedText implements PreparedQuery {
  readonly tokens: readonly string[];
  /** The query's vector and the space (fingerprint + dimension) it lies in; set by SearchIndex. */
  vector: Float32Array | null = null;
  spaceKey: string | null = null;

  constructor(readonly text: string) {
    this.tokens = tokenize(text);
  }
}

/** The prepared query itself when SearchIndex made it, else a new one (its vector computed when needed). */
export function asPrepared(q: QueryInput): PreparedText {
  if (q instanceof PreparedText) return q;
  return new PreparedText(typeof q === "string" ? q : q.text);
}

export function spaceKey(fingerprint: string, dimension: number): string {
  return `${dimension}:${fingerprint}`;
}
