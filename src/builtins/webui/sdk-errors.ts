/**
 * The statuses of the SDK refusals the chat, upload and memory routes meet, on top of errors.ts's common
 * ones, with Retry-After where waiting helps. Errors without a code are not refusals: they end as a 500.
 */
import type { ApiError } from "./context.js";
import { sdkError } from "./errors.js";

const STATUS: Record<string, ApiError["status"]> = {
  invalid_history: 400,
  input_empty: 400,
  input_cancelled: 409,
  not_found: 404,
  queue_full: 503,
  shutting_down: 503,
  unavailable: 503,
  // Memory's refusals of what the request asked (too many recall keywords, a forget query that would
  // match everything, …): the client's to fix, not the server's failure.
  graph_bad_argument: 400,
  graph_limit: 400,
  graph_not_found: 404,
  forget_too_short: 400,
  memory_bad_kind: 400,
  memory_bad_limit: 400,
  context_invalid: 400,
  doc_invalid: 400,
  doc_too_large: 413,
};

const RETRY_AFTER_S: Record<string, number> = { queue_full: 5, memory_unavailable: 5 };

/** The ApiError for an SDK refusal (unknown codes → 500); rethrows an error that has no code. */
export function toApiError(err: unknown): ApiError {
  const api = sdkError(err, STATUS, 500);
  api.retryAfterS ??= RETRY_AFTER_S[api.code];
  return api;
}

/** Awaits an SDK call, answering its refusals as ApiErrors. */
export async function sdkCall<T>(call: () => Promise<T> | T): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toApiError(err);
  }
}
