/**
 * The inbox: what a channel was sent while nobody was connected (a reminder, a background result), kept in
 * one table of memory.db until a client of that channel connects and reads it. Read = removed. Bounded per
 * channel in count and age, so a channel nobody opens for months cannot grow without end, and forgettable
 * like every other store of the user's words (forget-registry.ts).
 */

import type { InboxMessage } from "@homeagent/sdk";
import { forgetMatcher } from "@homeagent/sdk";
import type Database from "better-sqlite3";
import { cutText } from "../util/cut-text.js";
import { HomeAgentError } from "../util/errors.js";
import { cachedStatement } from "../util/statements.js";
import { DAY } from "../util/time-units.js";

export const INBOX_MAX_PER_CHANNEL = 500;
/** Over every channel, those of plugins long gone included. */
export const INBOX_MAX_TOTAL = 5_000;
export const INBOX_MAX_AGE_MS = 30 * DAY;
/** One message: a reminder or a command's result, not a document. */
export const INBOX_MAX_TEXT_CHARS = 16_000;
const MAX_KIND_CHARS = 32;

interface Row {
  id: number;
  channel: string;
  kind: string;
  text: string;
  created_at: number;
}

export class Inbox {
  constructor(
    private readonly db: Database.Database,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(`CREATE TABLE IF NOT EXISTS inbox (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      channel TEXT NOT NULL,
      kind TEXT NOT NULL,
      text TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS inbox_channel ON inbox (channel, id);`);
  }

  /**
   * Keeps a message (a longer one is cut, and says so: a reply to a channel nobody is on is not lost for
   * its length); the oldest beyond the caps, and what is older than 30 days, make room. Returns its id.
   */
  put(channel: string, kind: string, text: string): number {
    const kept = cutText(text, INBOX_MAX_TEXT_CHARS);
    this.expire();
    const info = cachedStatement(
      this.db,
      "INSERT INTO inbox (channel, kind, text, created_at) VALUES (?, ?, ?, ?)",
    ).run(channel, kind.slice(0, MAX_KIND_CHARS), kept, this.now());
    cachedStatement(
      this.db,
      "DELETE FROM inbox WHERE channel = ? AND id <= (SELECT id FROM inbox WHERE channel = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
    ).run(channel, channel, INBOX_MAX_PER_CHANNEL);
    cachedStatement(
      this.db,
      "DELETE FROM inbox WHERE id <= (SELECT id FROM inbox ORDER BY id DESC LIMIT 1 OFFSET ?)",
    ).run(INBOX_MAX_TOTAL);
    return Number(info.lastInsertRowid);
  }

  count(channel: string): number {
    this.expire();
    return (cachedStatement(this.db, "SELECT count(*) AS n FROM inbox WHERE channel = ?").get(channel) as { n: number })
      .n;
  }

  peek(channel: string, limit = INBOX_MAX_PER_CHANNEL): InboxMessage[] {
    this.expire();
    const rows = cachedStatement(this.db, "SELECT * FROM inbox WHERE channel = ? ORDER BY id LIMIT ?").all(
      channel,
      clampLimit(limit),
    ) as Row[];
    return rows.map(toMessage);
  }

  take(channel: string, limit = INBOX_MAX_PER_CHANNEL): InboxMessage[] {
    return this.db.transaction(() => {
      const messages = this.peek(channel, limit);
      this.remove(
        channel,
        messages.map((m) => m.id),
      );
      return messages;
    })();
  }

  remove(channel: string, ids: readonly number[]): number {
    if (ids.length > INBOX_MAX_PER_CHANNEL) {
      throw new HomeAgentError({
        code: "invalid_argument",
        message: `at most ${INBOX_MAX_PER_CHANNEL} messages are removed at once (a channel keeps no more)`,
      });
    }
    const del = cachedStatement(this.db, "DELETE FROM inbox WHERE channel = ? AND id = ?");
    return this.db.transaction(() => ids.reduce((n, id) => n + del.run(channel, id).changes, 0))();
  }

  /** Messages that mention every term; removed when `remove`. */
  forget(terms: readonly string[], remove: boolean): number {
    const matches = forgetMatcher(terms);
    const rows = cachedStatement(this.db, "SELECT id, text FROM inbox").all() as Array<{ id: number; text: string }>;
    const hits = rows.filter((r) => matches(r.text));
    if (remove) {
      const del = cachedStatement(this.db, "DELETE FROM inbox WHERE id = ?");
      this.db.transaction(() => {
        for (const r of hits) del.run(r.id);
      })();
    }
    return hits.length;
  }

  private expire(): void {
    cachedStatement(this.db, "DELETE FROM inbox WHERE created_at < ?").run(this.now() - INBOX_MAX_AGE_MS);
  }
}

function clampLimit(limit: number): number {
  return Number.isInteger(limit) && limit > 0 ? Math.min(limit, INBOX_MAX_PER_CHANNEL) : INBOX_MAX_PER_CHANNEL;
}

function toMessage(r: Row): InboxMessage {
  return { id: r.id, channel: r.channel, kind: r.kind, text: r.text, createdAt: r.created_at };
}
