/**
 * The one way the dashboard talks to the daemon: JSON in and out, the session's CSRF token on every write
 * (the session cookie itself is HttpOnly), and the server's `{error: {code, message}}` turned into an
 * ApiError whose message is the server's own, so the page can show it as it is.
 */

import { setTimeZone } from "./format";

/** Why a setting's value was refused, as an id and its details (the server's SetManyResult.reasons). */
export interface Refusal {
  reason: string;
  params?: Record<string, string>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Per key, why a settings form's save was refused (`error.refused`), in English; empty otherwise. */
    readonly refused: Record<string, string> = {},
    /** Per key, the refusal's id and details where the server gave them (`error.reasons`). */
    readonly reasons: Record<string, Refusal> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export interface Session {
  user: string | null;
  csrf: string | null;
  expiresAt: number | null;
  /** The zone dates are shown in: the agent's (core.agent.timezone, else the daemon's system zone). */
  timeZone?: string;
}

let csrf: string | null = null;
/** Called when a request answers 401: the session ended, the page goes back to the login view. */
let onUnauthorized: () => void = () => {};

export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

export function setCsrf(token: string | null): void {
  csrf = token;
}

const SAFE = new Set(["GET", "HEAD"]);

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const form = body instanceof FormData;
  const headers: Record<string, string> = { Accept: "application/json" };
  // A FormData body sets its own multipart Content-Type (with the boundary).
  if (body !== undefined && !form) headers["Content-Type"] = "application/json";
  if (!SAFE.has(method) && csrf) headers["X-CSRF-Token"] = csrf;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : form ? body : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch (err) {
    throw new ApiError(0, "network", `the daemon did not answer (${(err as Error).message})`);
  }
  const text = await res.text();
  const parsed = parse(text);
  if (!res.ok) {
    const error = errorOf(parsed);
    if (res.status === 401 && path !== "/api/v1/login") onUnauthorized();
    throw new ApiError(
      res.status,
      error?.code ?? "http_error",
      error?.message ?? `HTTP ${res.status}`,
      error?.refused,
      error?.reasons,
    );
  }
  return parsed as T;
}

export const get = <T>(path: string): Promise<T> => api<T>("GET", path);
export const post = <T>(path: string, body?: unknown): Promise<T> => api<T>("POST", path, body ?? {});

/** Logs in, then reads the session (its CSRF token) the way a reload would. */
export async function login(username: string, password: string): Promise<Session> {
  await api("POST", "/api/v1/login", { username, password });
  return loadSession();
}

/** What the login page asks first (open, so it never meets a 401): is this browser logged in, where is the password. */
export interface LoginInfo {
  loggedIn: boolean;
  /** Only for a browser on the daemon's own machine; null elsewhere. */
  credentialsFile: string | null;
}

let asked: Promise<LoginInfo> | undefined;

/**
 * Asked once per page (the app on /login and the login view share the answer; only the file is read after
 * the start); a failure is asked again next time.
 */
export function loginInfo(): Promise<LoginInfo> {
  asked ??= get<LoginInfo>("/api/v1/login").catch((err: unknown) => {
    asked = undefined;
    throw err;
  });
  return asked;
}

export async function loadSession(): Promise<Session> {
  const session = await get<Session>("/api/v1/session");
  setCsrf(session.csrf);
  setTimeZone(session.timeZone);
  return session;
}

export async function logout(): Promise<void> {
  await post("/api/v1/logout");
  setCsrf(null);
}

function parse(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

interface ErrorBody {
  code?: string;
  message?: string;
  refused?: Record<string, string>;
  reasons?: Record<string, Refusal>;
}

function errorOf(body: unknown): ErrorBody | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message, refused, reasons } = error as Record<string, unknown>;
  return {
    code: typeof code === "string" ? code : undefined,
    message: typeof message === "string" ? message : undefined,
    refused: typeof refused === "object" && refused !== null ? stringsOf(refused) : undefined,
    reasons: typeof reasons === "object" && reasons !== null ? refusalsOf(reasons) : undefined,
  };
}

/** The well-formed refusals the server sent (anything else is left out: the English still says why). */
function refusalsOf(value: object): Record<string, Refusal> {
  // fromEntries, not assignment: a key such as "__proto__" stays a key.
  return Object.fromEntries(
    Object.entries(value)
      .filter(
        (e): e is [string, Refusal] => typeof e[1] === "object" && e[1] !== null && typeof e[1].reason === "string",
      )
      .map(([key, r]) => [
        key,
        { reason: r.reason, params: typeof r.params === "object" && r.params ? stringsOf(r.params) : {} },
      ]),
  );
}

/** The string values of an object the server sent (anything else is left out). */
function stringsOf(value: object): Record<string, string> {
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}
