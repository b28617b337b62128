/**
 * One auth model for every route: an API key (`X-API-Key` or `Authorization: Bearer`) or the session
 * cookie of a login. Writes made with the cookie must echo the session's CSRF token, because a browser
 * attaches the cookie to requests other sites make it send. Only the login page, its assets and the login
 * call itself are open; everything else answers 401 without credentials.
 */
import type { AuthAPI } from "@homeagent/sdk";
import type { Context, MiddlewareHandler } from "hono";
import { ApiError, type WebEnv } from "./context.js";
import { unauthenticatedPage } from "./login-page.js";

export const SESSION_COOKIE = "homeagent_session";
export const CSRF_HEADER = "X-CSRF-Token";

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The routes open without credentials; GET also covers HEAD (Hono answers HEAD with the GET route). */
export function isPublicRoute(method: string, path: string): boolean {
  const read = method === "GET" || method === "HEAD";
  if (read && (path === "/login" || path.startsWith("/assets/"))) return true;
  return method === "POST" && path === "/api/v1/login";
}

export function authMiddleware(auth: () => AuthAPI): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    if (isPublicRoute(c.req.method, c.req.path)) {
      c.set("authKind", "none");
      return next();
    }
    const key = presentedKey(c);
    if (key !== undefined) {
      if (key === "" || !auth().verifyApiKey(key)) throw unauthorized("the API key is not valid");
      c.set("authKind", "key");
      return next();
    }
    const sessionId = sessionCookie(c);
    const session = sessionId ? auth().session(sessionId) : null;
    if (!session) {
      if (c.req.method === "GET" && c.req.path === "/") return unauthenticatedPage(c);
      throw unauthorized(
        sessionId ? "the session has ended; log in again" : "send X-API-Key, Authorization: Bearer, or log in",
      );
    }
    if (UNSAFE_METHODS.has(c.req.method)) {
      const token = c.req.header(CSRF_HEADER) ?? "";
      if (token === "" || !auth().verifyCsrf(session.id, token)) {
        throw new ApiError(
          403,
          "csrf_failed",
          `a write with the session cookie needs the session's CSRF token in ${CSRF_HEADER} (GET /api/v1/session has it)`,
        );
      }
    }
    c.set("authKind", "session");
    c.set("session", session);
    return next();
  };
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, "unauthorized", message);
}

/** The key from `X-API-Key` or a Bearer token; undefined when neither header is there. */
function presentedKey(c: Context<WebEnv>): string | undefined {
  const header = c.req.header("x-api-key");
  if (header !== undefined) return header.trim();
  const authorization = c.req.header("authorization");
  if (authorization === undefined) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  return match ? match[1].trim() : "";
}

/** The session cookie's value, read without decoding tricks (ids are plain base64url). */
export function sessionCookie(c: Context<WebEnv>): string | undefined {
  const header = c.req.header("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** `Set-Cookie` for a new session (its lifetime) or for ending one (`maxAgeS` 0). */
export function sessionCookieHeader(value: string, maxAgeS: number): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.max(0, maxAgeS)}`;
}
