/**
 * The web server's limits in one place, so a reader sees every bound the server holds and tests can
 * shrink them. Each one has a clear error when hit (413 for bodies, 503 for SSE clients, 504 for chats).
 */
import type { WebLimits } from "./context.js";

const KiB = 1024;
const MiB = 1024 * KiB;

export const DEFAULT_LIMITS: WebLimits = {
  maxJsonBytes: 1 * MiB,
  maxUploadBytes: 64 * MiB,
  uploadQuotaBytes: 1024 * MiB,
  maxSseClients: 64,
  sseQueue: 512,
  sseHeartbeatMs: 15_000,
  sseRetryMs: 3000,
  sseRing: 200,
  chatTimeoutMs: 300_000,
  maxPreAuthConnections: 256,
};

/** Knowledge items and adapter scripts travel as JSON strings: room for their own caps (1 MiB, 256 KiB) plus escaping. */
export const MAX_EDITOR_BODY_BYTES = 2 * MiB;

/** A login body holds a user name and a password; anything larger is not a login. */
export const MAX_LOGIN_BODY_BYTES = 8 * KiB;

/** Query strings (prefixes, paths, search text) longer than this are refused with 400. */
export const MAX_QUERY_CHARS = 1024;

/** The limits with `overrides` applied; an override of `undefined` keeps the default. */
export function resolveLimits(base: WebLimits, overrides: Partial<WebLimits> = {}): WebLimits {
  const defined = Object.entries(overrides).filter(([, v]) => v !== undefined);
  return { ...base, ...Object.fromEntries(defined) };
}

/**
 * Open TCP connections at once (SSE clients, keep-alive connections, requests in flight); more are refused.
 * At most `maxPreAuthConnections` of them may be unauthenticated (connection-gate.ts).
 */
export const MAX_CONNECTIONS = 512;

/** How long the server waits on a client: against slowloris, and against clients that stop reading. */
export interface ServerTimeouts {
  /**
   * The request line and headers must all arrive within this. Node's default (60 s, checked every 30 s) let
   * one client trickling headers on 512 connections keep everybody else out.
   */
  headersMs: number;
  /**
   * A new connection's first request: its headers must arrive within this, so connections that send
   * nothing give their place back sooner than `headersMs`.
   */
  firstHeadersMs: number;
  /** The whole request, body included (a 64 MiB upload at ~220 KB/s). */
  requestMs: number;
  /**
   * A connection on which nothing moves either way for this long is cut: a client that stopped reading a
   * download. Longer than a sync chat's wait, which is silent until the reply.
   */
  idleMs: number;
  /** How often the header and request deadlines are checked. */
  checkMs: number;
}

/** The timeouts for `limits` with `overrides` applied (tests shrink them). */
export function serverTimeouts(limits: WebLimits, overrides: Partial<ServerTimeouts> = {}): ServerTimeouts {
  const defaults: ServerTimeouts = {
    headersMs: 10_000,
    firstHeadersMs: 5_000,
    requestMs: 300_000,
    idleMs: Math.max(limits.chatTimeoutMs, limits.sseHeartbeatMs) + 60_000,
    checkMs: 1_000,
  };
  const defined = Object.entries(overrides).filter(([, v]) => v !== undefined);
  return { ...defaults, ...Object.fromEntries(defined) };
}
