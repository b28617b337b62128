/**
 * What every part of the web UI server shares: the Hono environment (who the request is authenticated as),
 * the dependencies route groups get, and the one error shape (`{error: {code, message}}` with an HTTP
 * status). Route groups throw ApiError; the app's error handler turns it, and anything else, into JSON.
 */
import { type AuthSession, type ErrorCode, type PluginSDK, SdkError } from "@homeagent/sdk";
import type { Hono } from "hono";
import type { SessionStreams } from "./sse-sessions.js";

/** How a request proved who it is: "session" (cookie), "key" (X-API-Key or Bearer), "none" (public route). */
export type AuthKind = "session" | "key" | "none";

export interface WebEnv {
  Variables: {
    authKind: AuthKind;
    /** Set when authKind is "session". */
    session?: AuthSession;
    /** The client's address, for the request log and the login limit. */
    clientAddress: string;
  };
}

export type WebApp = Hono<WebEnv>;

/** Limits of the server; every one has a clear error when hit. Defaults in limits.ts. */
export interface WebLimits {
  /** JSON bodies. */
  maxJsonBytes: number;
  /** One uploaded file (chat/file). */
  maxUploadBytes: number;
  /** All of `<data>/workspace/uploads/` together. */
  uploadQuotaBytes: number;
  /** Concurrent SSE clients. */
  maxSseClients: number;
  /** Events queued for one SSE client before further ones are dropped (and counted). */
  sseQueue: number;
  sseHeartbeatMs: number;
  /** How long a browser waits before reconnecting an event stream (sent as `retry:`). */
  sseRetryMs: number;
  /** Replayable events kept for Last-Event-ID. */
  sseRing: number;
  /** A sync chat (or a non-streaming completion) that takes longer is answered 504. */
  chatTimeoutMs: number;
  /**
   * Connections held at once that have not yet completed an authenticated request (below MAX_CONNECTIONS,
   * so keyed and logged-in clients always have room); over it the oldest such one is cut.
   */
  maxPreAuthConnections: number;
}

/** The SSE hub's counters, for `/api/v1/kernel` and `/api/v1/runtime`. */
export interface SseStats {
  clients: number;
  /** Streams opened by a logged-in dashboard (not with an API key): who is shown reminders and approvals. */
  dashboards: number;
  maxClients: number;
  /** Events written to clients since start. */
  sent: number;
  /** Events dropped because a client's queue was full, since start. */
  dropped: number;
  /** Events sent again after a Last-Event-ID. */
  replayed: number;
  /** Replayable events held now. */
  ring: number;
}

export interface WebDeps {
  sdk: PluginSDK;
  limits: WebLimits;
  /** Unix ms when the plugin started. */
  startedAt: number;
  sseStats(): SseStats;
  /** The streams open under each login session, ended with it; absent where sessions are not used (unit tests). */
  sessionStreams?: SessionStreams;
}

/** A route group adds its routes to the app; it may return a stop function (e.g. closing streams). */
export type RouteGroup = (app: WebApp, deps: WebDeps) => undefined | (() => void | Promise<void>);

/** Any refusal a route makes: the status and code go to the client as `{error: {code, message}}`. */
export class ApiError extends SdkError {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 408 | 413 | 415 | 422 | 429 | 500 | 502 | 503 | 504,
    code: ErrorCode,
    message: string,
    options?: { cause?: unknown; retryAfterS?: number },
  ) {
    super({ code, message, cause: options?.cause });
    if (options?.retryAfterS !== undefined) this.retryAfterS = options.retryAfterS;
  }

  retryAfterS?: number;
}
