/**
 * Login sessions of the web UI: random ids, a fixed lifetime, each with its own CSRF token. Kept in memory
 * only (a restart logs everybody out, which a home daemon can afford) and bounded: beyond the limit the
 * oldest session goes, so a script that logs in in a loop cannot grow the daemon.
 */
import { createHash } from "node:crypto";
import { type Clock, systemClock } from "../util/clock.js";
import { randomToken } from "./secret-hash.js";

export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
export const MAX_SESSIONS = 1024;

export interface Session {
  /** The cookie value. */
  id: string;
  user: string;
  /** Cookie-authenticated writes must echo this token. */
  csrf: string;
  /** Unix milliseconds. */
  createdAt: number;
  expiresAt: number;
}

interface Entry {
  session: Session;
  /** Credentials version at login: a reset ends every session opened before it. */
  version: number;
}

export interface SessionStoreOptions {
  clock?: Clock;
  ttlMs?: number;
  max?: number;
}

export class SessionStore {
  /** Keyed by the id's digest: the ids themselves are not kept, and a lookup reveals nothing by its timing. */
  private readonly entries = new Map<string, Entry>();
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly max: number;

  constructor(opts: SessionStoreOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    this.ttlMs = opts.ttlMs ?? SESSION_TTL_MS;
    this.max = opts.max ?? MAX_SESSIONS;
  }

  create(user: string, version: number): Session {
    const now = this.clock.now();
    // Insertion order is age order (every session lives equally long): the first entry is the oldest.
    while (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    const session: Session = {
      id: randomToken(),
      user,
      csrf: randomToken(),
      createdAt: now,
      expiresAt: now + this.ttlMs,
    };
    this.entries.set(digest(session.id), { session, version });
    return { ...session };
  }

  /** The live session with this id, opened under credentials `version`; expired or older ones are dropped. */
  get(id: string, version: number): Session | undefined {
    const key = digest(id);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.session.expiresAt <= this.clock.now() || entry.version !== version) {
      this.entries.delete(key);
      return undefined;
    }
    return { ...entry.session };
  }

  /** True when there was such a session. */
  delete(id: string): boolean {
    return this.entries.delete(digest(id));
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

function digest(id: string): string {
  return createHash("sha256").update(id).digest("base64url");
}
