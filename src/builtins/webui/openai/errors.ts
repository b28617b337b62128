/**
 * OpenAI-style errors for the `/v1` routes: `{error: {message, type, param, code}}`, which the official
 * clients turn into their typed errors (BadRequestError, …). Refusals are ApiErrors like everywhere else in
 * the web UI; this file adds the OpenAI `type` and turns kernel refusals (by their `code`) into statuses.
 */
import { type ErrorCode, type Logger, SdkError } from "@homeagent/sdk";
import { ApiError } from "../context.js";
import { type OpenAIErrorType, openAiType } from "../errors.js";
import { toApiError } from "../sdk-errors.js";

export interface OpenAIErrorBody {
  error: { message: string; type: OpenAIErrorType; param: string | null; code: ErrorCode };
}

/** A refusal that names the request field at fault (OpenAI's `param`). */
export class ParamError extends ApiError {
  constructor(
    status: ApiError["status"],
    code: ErrorCode,
    message: string,
    readonly param: string,
    options?: { cause?: unknown },
  ) {
    super(status, code, message, options);
  }
}

/** A refusal of the request itself: 400 invalid_request_error, naming the field at fault. */
export function invalidRequest(code: ErrorCode, message: string, param: string): ParamError {
  return new ParamError(400, code, message, param);
}

/** The status and body the client gets for `err`; anything that is not a known refusal is a 500. */
export function toOpenAIError(
  err: unknown,
  log: Logger,
): { status: ApiError["status"]; body: OpenAIErrorBody; retryAfterS?: number } {
  const api = err instanceof ApiError ? err : fromKernel(err);
  if (!api) {
    log.error(`openai: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return { status: 500, body: errorBody("internal_error", "internal error; see the daemon log", "server_error") };
  }
  const param = api instanceof ParamError ? api.param : null;
  return {
    status: api.status,
    body: errorBody(api.code, api.message, openAiType(api.status), param),
    ...(api.retryAfterS === undefined ? {} : { retryAfterS: api.retryAfterS }),
  };
}

export function errorBody(
  code: ErrorCode,
  message: string,
  type: OpenAIErrorType,
  param: string | null = null,
): OpenAIErrorBody {
  return { error: { message, type, param, code } };
}

/**
 * The kernel refuses an input before queueing it with an SdkError; the web UI's one table of codes
 * (sdk-errors.ts) gives the status. Codes it answers with 500 are internal errors, and so stay unexplained.
 */
function fromKernel(err: unknown): ApiError | undefined {
  if (!(err instanceof SdkError)) return undefined;
  const api = toApiError(err);
  if (api.status === 500) return undefined;
  if (api.code === "input_empty") {
    return new ParamError(400, api.code, `${err.message}: the last user message has no text`, "messages", {
      cause: err,
    });
  }
  if (api.code === "invalid_history") return new ParamError(400, api.code, err.message, "messages", { cause: err });
  return api;
}
