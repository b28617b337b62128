/**
 * The daemon's one auth model (issue 10): the admin's password and API key, login sessions with their CSRF
 * tokens, and the per-address login limit. Servers (the web UI plugin) ask it; they never see a stored hash.
 * Credentials are re-read from config.db on every check, so `homed --reset-credentials` run beside a running
 * daemon takes effect at once and ends the sessions opened before it.
 */
import { type Clock, systemClock } from "../util/clock.js";
import { HomeAgentError } from "../util/errors.js";
import {
  ADMIN_USER,
  CredentialTable,
  credentialsFile,
  type EnsureResult,
  ensureCredentials,
  makeCredentials,
  type StoredCredentials,
} from "./credentials.js";
import { LoginLimiter } from "./login-limit.js";
import { apiKeyMatches, passwordMatches, tokensEqual } from "./secret-hash.js";
import { type Session, SessionStore } from "./sessions.js";

export type { Session } from "./sessions.js";

/** scrypt costs 32 MiB and a core for ~0.1 s: more checks than this at once are refused, not queued. */
const MAX_CONCURRENT_HASHES = 4;

export class AuthError extends HomeAgentError {
  /** For `auth_rate_limited` and `auth_busy`: seconds until a new attempt can succeed. */
  readonly retryAfterS?: number;

  constructor(
    code: "auth_failed" | "auth_rate_limited" | "auth_busy" | "auth_no_credentials",
    message: string,
    retryAfterS?: number,
  ) {
    super({ code, message });
    if (retryAfterS !== undefined) this.retryAfterS = retryAfterS;
  }
}

export interface AuthOptions {
  dataDir: string;
  configDb: string;
  /** Source of HOMEAGENT_ADMIN_PASSWORD / HOMEAGENT_API_KEY. Default: process.env. */
  env?: Record<string, string | undefined>;
  clock?: Clock;
  sessionTtlMs?: number;
  maxSessions?: number;
  loginsPerMinute?: number;
  loginBurst?: number;
  maxAddresses?: number;
}

export class Auth {
  private readonly sessions: SessionStore;
  private readonly limiter: LoginLimiter;
  private readonly env: Record<string, string | undefined>;
  private hashing = 0;

  private constructor(
    private readonly table: CredentialTable,
    private readonly opts: AuthOptions,
  ) {
    const clock = opts.clock ?? systemClock;
    this.env = opts.env ?? process.env;
    this.sessions = new SessionStore({ clock, ttlMs: opts.sessionTtlMs, max: opts.maxSessions });
    this.limiter = new LoginLimiter({
      clock,
      perMinute: opts.loginsPerMinute,
      burst: opts.loginBurst,
      maxAddresses: opts.maxAddresses,
    });
  }

  static open(opts: AuthOptions): Auth {
    return new Auth(CredentialTable.open(opts.configDb), opts);
  }

  /** At start: makes credentials if there are none; only the file's path comes back, never a secret. */
  ensureCredentials(): Promise<EnsureResult> {
    return ensureCredentials(this.table, this.opts.dataDir, this.env);
  }

  /** Where the generated password is written (a login page names it); a path, never a secret. */
  credentialsFile(): string {
    return credentialsFile(this.opts.dataDir);
  }

  /** New credentials (`homed --reset-credentials`); every session ends. Returns the credentials file. */
  async resetCredentials(): Promise<string> {
    const file = await makeCredentials(this.table, this.opts.dataDir, this.env);
    this.sessions.clear();
    return file;
  }

  /**
   * A new session for the right user name and password. Refused with AuthError `auth_rate_limited` (too
   * many attempts from `address`), `auth_busy` or `auth_failed` (which never says which part was wrong).
   */
  async login(user: string, password: string, address: string): Promise<Session> {
    const admission = this.limiter.take(address);
    if (!admission.ok) {
      const who = admission.full ? "from too many addresses at once" : `from ${address}`;
      throw new AuthError(
        "auth_rate_limited",
        `too many login attempts ${who}; try again in ${admission.retryAfterS} s`,
        admission.retryAfterS,
      );
    }
    const stored = await this.check(user, password);
    if (!stored) throw new AuthError("auth_failed", "wrong user name or password");
    return this.sessions.create(stored.user, stored.version);
  }

  /** The live session with this id, or undefined (unknown, expired, logged out, or older than a reset). */
  verifySession(id: string): Session | undefined {
    const stored = this.table.get();
    return stored ? this.sessions.get(id, stored.version) : undefined;
  }

  /** True when `token` is the session's CSRF token (constant time). */
  verifyCsrf(session: Session, token: string): boolean {
    return tokensEqual(session.csrf, token);
  }

  /** True when there was such a session. */
  logout(id: string): boolean {
    return this.sessions.delete(id);
  }

  verifyApiKey(key: string): boolean {
    const stored = this.table.get();
    return !!stored && apiKeyMatches(key, stored.apiKeyHash);
  }

  /** Checks a password without opening a session or counting an attempt (e.g. to confirm a change). */
  async verifyPassword(user: string, password: string): Promise<boolean> {
    return (await this.check(user, password)) !== undefined;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  close(): void {
    this.sessions.clear();
    this.table.close();
  }

  /** The stored credentials when user and password are right; AuthError `auth_busy` past the hashing limit. */
  private async check(user: string, password: string): Promise<StoredCredentials | undefined> {
    const stored = this.stored();
    if (this.hashing >= MAX_CONCURRENT_HASHES) {
      throw new AuthError("auth_busy", "too many logins are being checked right now; try again in a second", 1);
    }
    this.hashing++;
    try {
      // The hash is checked even for a wrong user name, so timing does not tell which part was wrong.
      const ok = await passwordMatches(password, stored.passwordHash);
      return ok && user === stored.user ? stored : undefined;
    } finally {
      this.hashing--;
    }
  }

  private stored(): StoredCredentials {
    const stored = this.table.get();
    if (!stored) {
      throw new AuthError("auth_no_credentials", "no credentials yet; restart homed or run homed --reset-credentials");
    }
    return stored;
  }
}

export { ADMIN_USER };
