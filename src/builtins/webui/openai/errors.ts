/**
 * OpenAI-style errors for the `/v1` routes: `{error: {message, type, param, code}}`, which the official
 * clients turn into their typed errors (BadRequestError, …). Refusals are ApiErrors like everywhere else in
 * the web UI; this file adds the OpenAI `type` and turns kernel refusals (by their `code`) into statuses.
 */
import type { Logger } from "@homeagent/sdk";
import { ApiError } from "../context.js";

export type OpenAIErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "server_error";

export interface OpenAIErrorBody {
  error: { message: string; type: OpenAIErrorType; param: string | null; code: string };
}

/** A refusal that names the request field at fault (OpenAI's `param`). */
export class ParamError extends ApiError {
  constructor(
    status: ApiError["status"],
    code: string,
    message: string,
    readonly param: string,
    options?: { cause?: unknown },
  ) {
    super(status, code, message, options);
    this.name = "ParamError";
  }
}

/** A refusal of the request itself: 400 invalid_request_error, naming the field at fault. */
export function invalidRequest(code: string, message: string, param: string): ParamError {
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
    body: errorBody(api.code, api.message, typeOf(api.status), param),
    ...(api.retryAfterS === undefined ? {} : { retryAfterS: api.retryAfterS }),
  };
}

export function errorBody(
  code: string,
  message: string,
  type: OpenAIErrorType,
  param: string | null = null,
): OpenAIErrorBody {
  return { error: { message, type, param, code } };
}

function typeOf(status: number): OpenAIErrorType {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  return status >= 500 ? "server_error" : "invalid_request_error";
}

/**
 * The kernel refuses an input before queueing it with a coded error (HomeAgentError; this plugin may only
 * see it through its `code`). Unknown codes are internal errors.
 */
function fromKernel(err: unknown): ApiError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !(err instanceof Error)) return undefined;
  switch (code) {
    case "invalid_history":
      return new ParamError(400, code, err.message, "messages", { cause: err });
    case "input_empty":
      return new ParamError(400, code, `${err.message}: the last user message has no text`, "messages", {
        cause: err,
      });
    case "queue_full":
    case "shutting_down":
    case "input_cancelled":
      return new ApiError(503, code, err.message, { cause: err, retryAfterS: 1 });
    default:
      return undefined;
  }
}
