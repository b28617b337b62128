/**
 * Why an embedding provider could not be built or used. Tier selection shows the message as the reason a
 * tier is not in use, so it says what to set or fix; the code lets programs tell a setting to correct from
 * a server that is down, and the original error stays reachable as `cause`.
 */
import { HomeAgentError } from "../util/errors.js";

export type EmbeddingErrorCode =
  /** A setting is missing or invalid. */
  | "embedding_config"
  /** The server, model or optional package cannot be reached or loaded. */
  | "embedding_unavailable"
  /** The server or a word-vector file gave data that cannot be used (wrong shape, count or width). */
  | "embedding_invalid_data"
  /** No such provider, or a second one under a taken name. */
  | "embedding_provider_name"
  /** A provider written against a specification version the daemon does not support. */
  | "embedding_specification_version";

export class EmbeddingError extends HomeAgentError {
  declare readonly code: EmbeddingErrorCode;

  constructor(opts: { code: EmbeddingErrorCode; message: string; cause?: unknown }) {
    super(opts);
  }
}
