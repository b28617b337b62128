/**
 * The embedding SPI: how a model turns text (and, for unified spaces, images) into vectors. The kernel
 * hard-codes no model; providers register by name and are chosen by configuration.
 */

import { SdkError } from "./errors.js";

export type Modality = "text" | "image";

/**
 * The version of this interface. A provider states the one it was written against, so a daemon that
 * implements another refuses it with a clear error instead of calling methods that mean something else.
 */
export const EMBEDDING_SPECIFICATION_VERSION = 1;

export interface EmbeddingInput {
  /** Text as a string; images as bytes. */
  data: string | Uint8Array;
  /** "text/plain" for text; the image's MIME type otherwise. */
  mime: string;
}

export interface EmbeddingInfo {
  dimension: number;
  /**
   * Identifies the vector space: model, version and anything else that changes the vectors. Vectors are
   * only ever compared with vectors of the same fingerprint and dimension.
   */
  fingerprint: string;
  modalities: Modality[];
}

export interface EmbeddingProvider {
  /** Always EMBEDDING_SPECIFICATION_VERSION of the SDK the provider was written with. */
  readonly specificationVersion: typeof EMBEDDING_SPECIFICATION_VERSION;
  readonly name: string;
  info(): EmbeddingInfo;
  /** One vector per input, in order. Throws ErrModalityUnsupported for an input it cannot embed. */
  embed(inputs: EmbeddingInput[], opts?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}

/** Builds a provider from the `core.embedding.*` settings (key → value). */
export type EmbeddingFactory = (settings: Record<string, string>) => EmbeddingProvider | Promise<EmbeddingProvider>;

export class ErrModalityUnsupported extends SdkError {
  constructor(
    readonly provider: string,
    readonly mime: string,
  ) {
    super({
      code: "embedding_modality_unsupported",
      message: `embedding provider "${provider}" cannot embed ${mime}; use a provider with the "image" modality for it`,
    });
  }
}

export function textInput(text: string): EmbeddingInput {
  return { data: text, mime: "text/plain" };
}
