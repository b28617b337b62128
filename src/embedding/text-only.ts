import { type EmbeddingInput, ErrModalityUnsupported } from "./spi.js";

/** The texts of `inputs`, for providers that embed text only; any other modality is refused up front. */
export function textsOf(provider: string, inputs: EmbeddingInput[]): string[] {
  return inputs.map((input) => {
    if (!input.mime.startsWith("text/") || typeof input.data !== "string") {
      throw new ErrModalityUnsupported(provider, input.mime);
    }
    return input.data;
  });
}
