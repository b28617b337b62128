/**
 * The daemon's one auth model as servers see it (capability `auth`): the admin's API key, password logins
 * with sessions and their CSRF tokens, and the cli socket's own rule. A server never sees a stored hash or
 * the key itself; it only asks whether what a client presented is right.
 */

export interface AuthSession {
  /** The cookie value: treat it as a secret. */
  id: string;
  user: string;
  /** Writes authenticated by the session cookie must echo this token (e.g. in an `X-CSRF-Token` header). */
  csrf: string;
  /** Unix milliseconds. */
  createdAt: number;
  expiresAt: number;
}

export interface AuthAPI {
  /**
   * The cli socket's rule: a client key is asked for there only when the daemon was started with
   * HOMEAGENT_API_KEY (the socket is already private to the user).
   */
  required(): boolean;
  /** Checks a cli socket client's key; true when none is required. */
  verify(key: string): boolean;
  /** Checks a key presented as `X-API-Key` or `Authorization: Bearer` against the admin API key (constant time). */
  verifyApiKey(key: string): boolean;
  /**
   * Opens a session for the right user name and password. Rejects with an error whose `code` is
   * `auth_failed` (never says which part was wrong), `auth_rate_limited` (too many attempts from `address`)
   * or `auth_busy`; the last two carry `retryAfterS`.
   */
  login(user: string, password: string, address: string): Promise<AuthSession>;
  /** The live session with this id, or null (unknown, expired, logged out, or older than a credentials reset). */
  session(id: string): AuthSession | null;
  /** True when `token` is the CSRF token of the live session `sessionId` (constant time). */
  verifyCsrf(sessionId: string, token: string): boolean;
  /** Ends the session; true when there was one. */
  logout(sessionId: string): boolean;
  /** The file the generated admin password was written to (`<data dir>/credentials`), for a login page's hint. */
  credentialsFile(): string;
}
