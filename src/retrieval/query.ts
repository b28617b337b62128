/**
 * A query prepared once per turn: its tokens and its vector are computed once and reused by every search
 * and scoring call of the turn (prune, documents, graph, related memory). The vector belongs to the
 * vector space it was computed in; the index recomputes it when the embedder has changed since.
 */
import { tokenize } from "../embedding/text.js";

export class PreparedQuery {
  readonly tokens: readonly string[];
  /** @internal The query's vector and the space (fingerprint + dimension) it lies in; set by SearchIndex. */
  vector: Float32Array | null = null;
  /** @internal */
  spaceKey: string | null = null;

  constructor(readonly text: string) {
    this.tokens = tokenize(text);
  }
}

export function spaceKey(fingerprint: string, dimension: number): string {
  return `${dimension}:${fingerprint}`;
}
