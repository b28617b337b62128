/**
 * The cli socket's bounds: no client, authenticated or not, can hold the daemon's memory, file descriptors
 * or queue beyond these, and each limit that is hit tells the client why.
 */
export interface ConnectionLimits {
  /** A connection that has not sent a valid `/auth <key>` by then is closed (only when a key is required). */
  authTimeoutMs: number;
  /** Lines read and not yet answered on one connection; reading that connection pauses at this many. */
  maxPendingLines: number;
  /**
   * Reply bytes a client has not taken yet. Reading and answering pause as soon as its socket stops
   * draining; a client that lets more than this pile up anyway (one reply streams into it) is disconnected.
   */
  maxUnsentBytes: number;
  /** How long a closing connection may take to flush its last frames before it is cut off. */
  closeGraceMs: number;
  /**
   * After a client half-closes, how often the connection checks that the client is still there while its
   * lines are being answered, so a client that went away entirely still cancels what it asked for.
   */
  peerCheckMs: number;
}

export interface CliLimits extends ConnectionLimits {
  /**
   * Open connections. At the cap, the connection idle the longest (nothing asked and unanswered, nothing
   * sent or received for at least `idleEvictAfterMs`) is closed with a notice to make room; when none is
   * idle that long, the new one gets an error frame and is closed.
   */
  maxConnections: number;
  /** How long a connection must have been idle before it may be closed to make room for a new one. */
  idleEvictAfterMs: number;
}

export const DEFAULT_LIMITS: CliLimits = {
  authTimeoutMs: 10_000,
  maxPendingLines: 32,
  maxUnsentBytes: 16 * 1024 * 1024,
  closeGraceMs: 2_000,
  peerCheckMs: 1_000,
  maxConnections: 64,
  idleEvictAfterMs: 60_000,
};

export function authTimeoutText(ms: number): string {
  return `not authenticated within ${formatSeconds(ms)}: send "/auth <key>" as the first line`;
}

export function tooManyConnectionsText(max: number): string {
  return `too many connections to homed (max ${max}): close an idle waiter, or try again later`;
}

export function idleEvictedText(max: number): string {
  return `closed to make room: this connection was idle the longest of ${max} connections to homed; reconnect to go on`;
}

function formatSeconds(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
