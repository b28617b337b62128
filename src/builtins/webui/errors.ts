/**
 * Every error the server answers is JSON `{error: {code, message}}`: ApiErrors as they are, errors the SDK
 * raised mapped by their `code` (sdk-errors.ts), and anything unexpected as a 500 that names no internals
 * (the daemon log gets the details). Paths under /v1/ (the OpenAI-compatible API) also carry OpenAI's `type`.
 */
import { type ErrorCode, SdkError } from "@homeagent/sdk";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, type WebApp, type WebEnv } from "./context.js";
import { loggable } from "./request-log.js";

type ApiStatus = ApiError["status"];

/** The listen address could not be bound; the message names the setting to change. */
export class ListenError extends SdkError {
  constructor(message: string, cause?: unknown) {
    super({ code: "webui_listen_failed", message, cause });
  }
}

/** The JSON body for an error; OpenAI clients also read `type`. */
export function errorResponse(c: Context<WebEnv>, status: ApiStatus, code: ErrorCode, message: string): Response {
  const error: Record<string, string> = { code, message };
  if (isOpenAiPath(c.req.path)) error.type = openAiType(status);
  return c.json({ error }, status as ContentfulStatusCode);
}

export function isOpenAiPath(path: string): boolean {
  return path === "/v1" || path.startsWith("/v1/");
}

export type OpenAIErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "rate_limit_error"
  | "server_error";

/** OpenAI's error `type` for a status (its API says invalid_request_error for a 404 too). */
export function openAiType(status: number): OpenAIErrorType {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** Installs the app-wide error, 404 and 405 handlers. */
export function installErrorHandlers(app: WebApp, log: (msg: string) => void): void {
  app.onError((err, c) => {
    if (err instanceof ApiError) {
      if (err.retryAfterS !== undefined) c.header("Retry-After", String(err.retryAfterS));
      if (err.status === 401) c.header("WWW-Authenticate", "Bearer");
      return errorResponse(c, err.status, err.code, err.message);
    }
    if (err instanceof HTTPException && err.status < 500) {
      return errorResponse(c, err.status as ApiStatus, "bad_request", err.message || "the request is malformed");
    }
    log(`${c.req.method} ${loggable(c.req.path)} failed: ${err instanceof Error ? (err.stack ?? err.message) : err}`);
    return errorResponse(c, 500, "internal_error", "the server failed to answer; the daemon log has the details");
  });
  app.notFound((c) => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length > 0) {
      c.header("Allow", allowed.join(", "));
      return errorResponse(
        c,
        405,
        "method_not_allowed",
        `${c.req.method} is not allowed here; use ${allowed.join(" or ")}`,
      );
    }
    return errorResponse(c, 404, "not_found", `there is no ${c.req.path}; see the API table in the README`);
  });
}

/** The methods routes (not middleware) answer for `path`; empty when nothing is registered there. */
function allowedMethods(app: WebApp, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    if (patternOf(route.path).test(path)) methods.add(route.method);
  }
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}

const patterns = new Map<string, RegExp>();

/** A Hono route path (`/a/:name`, `/assets/*`) as a regular expression over request paths. */
function patternOf(routePath: string): RegExp {
  let pattern = patterns.get(routePath);
  if (!pattern) {
    const source = routePath
      .split("/")
      .map((segment) => {
        if (segment === "*") return ".*";
        if (segment.startsWith(":")) return "[^/]+";
        return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      })
      .join("/");
    pattern = new RegExp(`^${source}/?$`);
    patterns.set(routePath, pattern);
  }
  return pattern;
}
