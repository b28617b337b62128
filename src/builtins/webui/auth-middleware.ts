/**
 * One auth model for every route: an API key (`X-API-Key` or `Authorization: Bearer`) or the session
 * cookie of a login. Writes made with the cookie must echo the session's CSRF token, because a browser
 * attaches the cookie to requests other sites make it send. Only the login page, its assets, the login
 * call itself and what the login page asks first (is this browser logged in, where is the password) are
 * open; everything else answers 401 without credentials.
 */
import type { AuthAPI, AuthSession } from "@homeagent/sdk";
import type { Context, MiddlewareHandler } from "hono";
import { ApiError, type WebEnv } from "./context.js";
import { unauthenticatedPage } from "./login-page.js";
import { MCP_PATH } from "./routes/mcp.js";

export const SESSION_COOKIE = "homeagent_session";
export const CSRF_HEADER = "X-CSRF-Token";

/** Methods that change nothing; every other one (POST, PUT, PATCH, DELETE, and any a route adds) is a write. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Cookies of this name looked at in one request; a browser sends one, a page that planted more sends a few. */
const MAX_SESSION_COOKIES = 4;

/**
 * Routes only a program holding the API key may use, never the dashboard's cookie: /mcp runs tools for
 * another agent, and a page open in the user's browser must not reach them with the login.
 */
function isKeyOnlyRoute(path: string): boolean {
  return path.replace(/\/+$/, "") === MCP_PATH;
}

/** The routes open without credentials; GET also covers HEAD (Hono answers HEAD with the GET route). */
export function isPublicRoute(method: string, path: string): boolean {
  const read = method === "GET" || method === "HEAD";
  if (read && (path === "/login" || path === "/api/v1/login" || path.startsWith("/assets/"))) return true;
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
    if (isKeyOnlyRoute(c.req.path)) {
      throw unauthorized(
        `${c.req.path} takes only the API key: send Authorization: Bearer <key> (a login does not count here)`,
      );
    }
    const sessionIds = sessionCookies(c);
    const session = firstLive(sessionIds, auth());
    if (!session) {
      if (c.req.method === "GET" && c.req.path === "/") return unauthenticatedPage(c);
      throw unauthorized(
        sessionIds.length > 0
          ? "the session has ended; log in again"
          : "send X-API-Key, Authorization: Bearer, or log in",
      );
    }
    if (!SAFE_METHODS.has(c.req.method)) {
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

/**
 * The session cookie's values, read without decoding tricks (ids are plain base64url). There can be more
 * than one: cookies are not kept apart by port, so a page on another localhost port can plant one with a
 * longer Path, which the browser then sends first; taking only the first would log the user out.
 */
export function sessionCookies(c: Context<WebEnv>): string[] {
  const header = c.req.header("cookie");
  if (!header) return [];
  const values: string[] = [];
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (value !== "") values.push(value);
    if (values.length === MAX_SESSION_COOKIES) break;
  }
  return values;
}

/** The live session of the request's cookie, for a public route that only says whether there is one. */
export function liveSession(c: Context<WebEnv>, auth: AuthAPI): AuthSession | null {
  return firstLive(sessionCookies(c), auth);
}

function firstLive(ids: string[], auth: AuthAPI): AuthSession | null {
  for (const id of ids) {
    const session = auth.session(id);
    if (session) return session;
  }
  return null;
}

/** `Set-Cookie` for a new session (its lifetime) or for ending one (`maxAgeS` 0). */
export function sessionCookieHeader(value: string, maxAgeS: number): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.max(0, maxAgeS)}`;
}
