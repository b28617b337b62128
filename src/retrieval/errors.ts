/**
 * Failures of the search engine that reach a caller's onError and the status, with the original error
 * kept as `cause` (a provider's error, say) rather than flattened into the message.
 */
import { HomeAgentError } from "../util/errors.js";

export type RetrievalErrorCode =
  /** A background re-embedding run stopped on an error; items without a vector rank by keyword alone. */
  | "reembed_failed"
  /** A search filter or paging argument is malformed or over its limit; the message says which. */
  | "invalid_filter";

export class RetrievalError extends HomeAgentError {
  declare readonly code: RetrievalErrorCode;

  constructor(opts: { code: RetrievalErrorCode; message: string; cause?: unknown }) {
    super(opts);
  }
}
