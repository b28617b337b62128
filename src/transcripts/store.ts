/**
 * TranscriptStore: what each turn looked like to the user, one row a turn in transcripts.db (database.ts), for
 * the dashboard's history and waiter's /history. Memory prunes, archives and forgets by relevance; a chat log
 * must keep what happened, so this is a store of its own: every channel, NoMemory turns included, the tool
 * calls and approvals of a turn kept with it. Written through as the turn goes (each write is a SQLite
 * commit), so a turn that was answered is here after `kill -9`. Bounded: each text has a cap (the cut said),
 * a turn at most MAX_ITEMS calls, and the whole by age and size (core.transcripts.*), oldest first.
 */
import type { TranscriptEntry, TranscriptItem, TranscriptQuery } from "@homeagent/sdk";
import { forgetMatcher } from "@homeagent/sdk";
import type Database from "better-sqlite3";
import { cutText } from "../util/cut-text.js";
import { HomeAgentError } from "../util/errors.js";
import { cachedStatement } from "../util/statements.js";
import { DAY } from "../util/time-units.js";
import { TranscriptSearch } from "./search.js";

/** Caps of what one entry keeps, in characters. */
const TRANSCRIPT_CAPS = { input: 100_000, reply: 1_000_000, reasoning: 200_000, args: 8_000, result: 16_000 };
/** Tool calls and approvals kept of one turn; later ones are counted, not kept. */
const MAX_ITEMS = 200;
const LIST_LIMITS = { defaultLimit: 50, maxLimit: 200 } as const;
const EXPIRE_EVERY_MS = 60_000;
/** About how many characters one page carries (a page of 50 maximal entries would be hundreds of MB). */
const PAGE_CHARS = 4_000_000;

export interface TranscriptLimits {
  maxDays: () => number;
  maxBytes: () => number;
}

interface Row {
  id: number;
  kind: string;
  request_id: string | null;
  ts: number;
  ended_at: number | null;
  source: string;
  channel: string;
  no_memory: number;
  new_topic: number;
  replaces: string | null;
  chosen_at: number | null;
  input: string;
  reasoning: string;
  reply: string;
  status: string;
  error: string | null;
  message_kind: string | null;
  item_count: number;
  bytes: number;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS transcripts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    request_id TEXT UNIQUE,
    ts INTEGER NOT NULL,
    ended_at INTEGER,
    source TEXT NOT NULL,
    channel TEXT NOT NULL,
    no_memory INTEGER NOT NULL DEFAULT 0,
    new_topic INTEGER NOT NULL DEFAULT 0,
    replaces TEXT,
    chosen_at INTEGER,
    input TEXT NOT NULL DEFAULT '',
    reasoning TEXT NOT NULL DEFAULT '',
    reply TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL,
    error TEXT,
    message_kind TEXT,
    item_count INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0,
    indexed INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX IF NOT EXISTS transcripts_due ON transcripts (id) WHERE indexed = 0;
  CREATE INDEX IF NOT EXISTS transcripts_channel ON transcripts (channel, id);
  CREATE INDEX IF NOT EXISTS transcripts_ts ON transcripts (ts);
  CREATE TABLE IF NOT EXISTS transcript_items (
    id INTEGER PRIMARY KEY,
    turn_id INTEGER NOT NULL REFERENCES transcripts (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    body TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    UNIQUE (turn_id, key)
  );
`;

class TranscriptError extends HomeAgentError {}

export class TranscriptStore {
  private readonly search: TranscriptSearch;
  /** Bytes of all rows, kept as rows come and go (read once at open). */
  private total: number;
  /** When entries past max_days were last looked for. */
  private expiredAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Database.Database,
    private readonly limits: TranscriptLimits,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(SCHEMA);
    addColumns(db);
    this.search = new TranscriptSearch(db, (id) => this.textOf(id));
    // A turn still "running" in the file was cut off by a stop or a crash of the daemon.
    db.prepare("UPDATE transcripts SET status = 'interrupted' WHERE status = 'running'").run();
    this.total = db
      .prepare(
        "SELECT (SELECT coalesce(sum(bytes), 0) FROM transcripts) + (SELECT coalesce(sum(bytes), 0) FROM transcript_items)",
      )
      .pluck()
      .get() as number;
  }

  /** A turn began (its raw_input). A request id seen before is left as it is: each turn is kept once. */
  begin(t: {
    requestId: string;
    source: string;
    channel: string;
    input: string;
    noMemory: boolean;
    newTopic?: boolean;
  }): void {
    const input = cutText(t.input, TRANSCRIPT_CAPS.input);
    const bytes = Buffer.byteLength(input);
    const info = cachedStatement(
      this.db,
      `INSERT OR IGNORE INTO transcripts
         (kind, request_id, ts, source, channel, no_memory, new_topic, input, status, bytes)
       VALUES ('turn', ?, ?, ?, ?, ?, ?, ?, 'running', ?)`,
    ).run(t.requestId, this.now(), t.source, t.channel, t.noMemory ? 1 : 0, t.newTopic ? 1 : 0, input, bytes);
    if (info.changes > 0) this.total += bytes;
  }

  /**
   * A tool call started or ended, or an approval was asked or closed: merged into the item of that id. A
   * turn keeps MAX_ITEMS of them; later ones are only counted.
   */
  item(requestId: string, item: TranscriptItem): void {
    const row = cachedStatement(this.db, "SELECT id, item_count FROM transcripts WHERE request_id = ?").get(
      requestId,
    ) as Pick<Row, "id" | "item_count"> | undefined;
    if (!row) return;
    const key = `${item.type}:${item.id}`;
    const old = cachedStatement(
      this.db,
      "SELECT id, body, bytes FROM transcript_items WHERE turn_id = ? AND key = ?",
    ).get(row.id, key) as { id: number; body: string; bytes: number } | undefined;
    // A call or a question is counted once, when it starts; due for the search index again, in one write.
    const starts =
      item.type === "tool" ? item.status === undefined : item.type === "approval" ? item.outcome === undefined : true;
    cachedStatement(this.db, "UPDATE transcripts SET item_count = item_count + ?, indexed = 0 WHERE id = ?").run(
      !old && starts ? 1 : 0,
      row.id,
    );
    if (!old && row.item_count >= MAX_ITEMS) return;
    // A later event fills in what an earlier one did not say (a call's end has no arguments): "" keeps the old.
    const said = Object.fromEntries(Object.entries(item).filter(([, v]) => v !== "" && v !== undefined));
    const body = JSON.stringify(boundItem(old ? ({ ...JSON.parse(old.body), ...said } as TranscriptItem) : item));
    const bytes = Buffer.byteLength(body);
    cachedStatement(
      this.db,
      `INSERT INTO transcript_items (turn_id, key, body, bytes) VALUES (?, ?, ?, ?)
       ON CONFLICT (turn_id, key) DO UPDATE SET body = excluded.body, bytes = excluded.bytes`,
    ).run(row.id, key, body, bytes);
    this.total += bytes - (old?.bytes ?? 0);
  }

  /** One round's reasoning, added to the turn's. */
  reasoning(requestId: string, text: string): void {
    const row = cachedStatement(this.db, "SELECT id, bytes, reasoning FROM transcripts WHERE request_id = ?").get(
      requestId,
    ) as Pick<Row, "id" | "bytes" | "reasoning"> | undefined;
    // Past its cap (the cut said once) later rounds are not kept: each would rewrite the whole text again.
    if (!row || !text || row.reasoning.length >= TRANSCRIPT_CAPS.reasoning) return;
    const reasoning = cutText(row.reasoning ? `${row.reasoning}\n\n${text}` : text, TRANSCRIPT_CAPS.reasoning);
    const bytes = row.bytes - Buffer.byteLength(row.reasoning) + Buffer.byteLength(reasoning);
    cachedStatement(this.db, "UPDATE transcripts SET reasoning = ?, bytes = ?, indexed = 0 WHERE id = ?").run(
      reasoning,
      bytes,
      row.id,
    );
    this.total += bytes - row.bytes;
  }

  /** The turn's end, in one write: its reply, or the error it ended with. */
  end(requestId: string, out: { reply: string; error?: string; stopped?: boolean }): void {
    const row = cachedStatement(
      this.db,
      "SELECT id, bytes FROM transcripts WHERE request_id = ? AND status = 'running'",
    ).get(requestId) as Pick<Row, "id" | "bytes"> | undefined;
    if (!row) return;
    const reply = out.error ? "" : cutText(out.reply, TRANSCRIPT_CAPS.reply);
    const error = out.error ? cutText(out.error, TRANSCRIPT_CAPS.args) : null;
    const bytes = row.bytes + Buffer.byteLength(reply) + Buffer.byteLength(error ?? "");
    cachedStatement(
      this.db,
      `UPDATE transcripts SET reply = ?, status = ?, error = ?, ended_at = ?, bytes = ?, indexed = 0 WHERE id = ?`,
    ).run(reply, out.error ? (out.stopped ? "stopped" : "error") : "done", error, this.now(), bytes, row.id);
    this.total += bytes - row.bytes;
    this.afterWrite();
  }

  /** The turn of this request, or null. */
  turn(requestId: string): TranscriptEntry | null {
    const r = cachedStatement(this.db, "SELECT * FROM transcripts WHERE request_id = ? AND kind = 'turn'").get(
      requestId,
    ) as Row | undefined;
    return r ? entryOf(r, this.itemsOf([r.id]).get(r.id) ?? []) : null;
  }

  /** The turn took the place of `replaces` (asked again or edited): from now on it is a version of it. */
  replaced(requestId: string, replaces: string): void {
    cachedStatement(this.db, "UPDATE transcripts SET replaces = ? WHERE request_id = ?").run(replaces, requestId);
  }

  /** An earlier version was chosen back (it is again the one in memory): it says so from now on. False: no such entry. */
  chosen(requestId: string, at: number): boolean {
    return (
      cachedStatement(this.db, "UPDATE transcripts SET chosen_at = ? WHERE request_id = ?").run(at, requestId).changes >
      0
    );
  }

  /** A message the agent sent on its own (a reminder, a background result), as it was delivered or kept. */
  message(m: { channel: string; kind: string; text: string }): void {
    const ts = this.now();
    const reply = cutText(m.text, TRANSCRIPT_CAPS.reply);
    const bytes = Buffer.byteLength(reply);
    cachedStatement(
      this.db,
      `INSERT INTO transcripts (kind, ts, ended_at, source, channel, reply, status, message_kind, bytes)
       VALUES ('message', ?, ?, 'agent', ?, ?, 'done', ?, ?)`,
    ).run(ts, ts, m.channel, reply, m.kind, bytes);
    this.total += bytes;
    this.afterWrite();
  }

  /**
   * A page, newest first: at most `limit` entries and about PAGE_CHARS characters (at least one entry), so
   * a page of long replies stays a size a client can take; `more` says what is left either way.
   */
  list(query: TranscriptQuery = {}): { items: TranscriptEntry[]; more: boolean } {
    const limit = checkLimit(query.limit);
    const before = query.before === undefined ? Number.MAX_SAFE_INTEGER : checkBefore(query.before);
    const channel = optionalText(query.channel, "channel") ?? null;
    const search = optionalText(query.search, "search");
    let rows: Row[];
    if (search?.trim()) {
      this.search.catchUp();
      rows = this.search.find(search, { before, channel, take: limit + 1 }) as Row[];
    } else {
      rows = cachedStatement(
        this.db,
        `SELECT * FROM transcripts WHERE id < @before AND (@channel IS NULL OR channel = @channel)
         ORDER BY id DESC LIMIT @take`,
      ).all({ before, channel, take: limit + 1 }) as Row[];
    }
    const items = this.itemsOf(rows.slice(0, limit).map((r) => r.id));
    const page: TranscriptEntry[] = [];
    let chars = 0;
    for (const r of rows.slice(0, limit)) {
      const kept = items.get(r.id) ?? [];
      chars += r.bytes + kept.reduce((n, i) => n + JSON.stringify(i).length, 0);
      if (page.length > 0 && chars > PAGE_CHARS) break;
      page.push(entryOf(r, kept));
    }
    return { items: page, more: rows.length > page.length };
  }

  /** The items of these turns, each turn's in the order they came. */
  private itemsOf(ids: readonly number[]): Map<number, TranscriptItem[]> {
    const byTurn = new Map<number, TranscriptItem[]>();
    if (ids.length === 0) return byTurn;
    const rows = this.db
      .prepare(
        `SELECT turn_id, body FROM transcript_items WHERE turn_id IN (${ids.map(() => "?").join(",")}) ORDER BY id`,
      )
      .all(...ids) as Array<{ turn_id: number; body: string }>;
    for (const r of rows) {
      const list = byTurn.get(r.turn_id) ?? [];
      list.push(JSON.parse(r.body) as TranscriptItem);
      byTurn.set(r.turn_id, list);
    }
    return byTurn;
  }

  /** All the text of one entry, its items' included: what search indexes and forget matches. */
  textOf(id: number): string {
    const r = cachedStatement(this.db, "SELECT input, reasoning, reply, error FROM transcripts WHERE id = ?").get(id) as
      | Pick<Row, "input" | "reasoning" | "reply" | "error">
      | undefined;
    if (!r) return "";
    const items = cachedStatement(this.db, "SELECT body FROM transcript_items WHERE turn_id = ? ORDER BY id")
      .pluck()
      .all(id) as string[];
    return [r.input, r.reasoning, r.reply, r.error ?? "", ...items.map(itemText)].join("\n");
  }

  /** Entries whose text holds every term; removed (with their search rows) when `remove`. */
  forget(terms: readonly string[], remove: boolean): number {
    const matches = forgetMatcher(terms);
    // One pass over the file: each entry's texts with its items' stored JSON (the matcher finds a term
    // escaped in JSON too), not a query or two per entry.
    const rows = cachedStatement(
      this.db,
      `SELECT t.id, t.input || char(10) || t.reasoning || char(10) || t.reply || char(10) || coalesce(t.error, '')
         || char(10) || coalesce((SELECT group_concat(body, char(10)) FROM transcript_items WHERE turn_id = t.id), '')
         AS text
       FROM transcripts t`,
    ).iterate() as Iterable<{ id: number; text: string }>;
    const hits: number[] = [];
    for (const r of rows) if (matches(r.text)) hits.push(r.id);
    if (remove && hits.length > 0) {
      this.remove(hits);
      // A deleted row's words stay in the index's stored blocks (VACUUM copies them as they are) until the
      // index is merged: merged now, so the scrub that follows a forget finds nothing.
      this.search.compact();
    }
    return hits.length;
  }

  /** Bytes the entries hold now (what core.transcripts.max_mb bounds). */
  bytes(): number {
    return this.total;
  }

  /**
   * The oldest go: what is older than max_days (looked for at most once a minute: a day's boundary does not
   * need each turn to look), then the oldest until the rest fits max_mb (the running total: no query).
   */
  private afterWrite(): void {
    if (this.now() - this.expiredAt >= EXPIRE_EVERY_MS) {
      this.expiredAt = this.now();
      const cutoff = this.now() - this.limits.maxDays() * DAY;
      const old = cachedStatement(this.db, "SELECT id FROM transcripts WHERE ts < ? AND status <> 'running'")
        .pluck()
        .all(cutoff) as number[];
      if (old.length > 0) this.remove(old);
    }
    const max = this.limits.maxBytes();
    while (this.total > max) {
      // A turn still running keeps its place: its reply is on its way.
      const oldest = cachedStatement(
        this.db,
        "SELECT id FROM transcripts WHERE status <> 'running' ORDER BY id LIMIT 64",
      )
        .pluck()
        .all() as number[];
      if (oldest.length <= 1) break;
      this.remove(oldest.slice(0, Math.max(1, Math.ceil(oldest.length / 4))));
    }
    this.search.schedule();
  }

  private remove(ids: readonly number[]): void {
    const size = cachedStatement(
      this.db,
      "SELECT bytes + (SELECT coalesce(sum(bytes), 0) FROM transcript_items WHERE turn_id = t.id) FROM transcripts t WHERE id = ?",
    ).pluck();
    const del = cachedStatement(this.db, "DELETE FROM transcripts WHERE id = ?");
    this.db.transaction(() => {
      for (const id of ids) {
        this.total -= (size.get(id) as number | undefined) ?? 0;
        del.run(id);
        this.search.drop(id);
      }
    })();
  }
}

/** Columns added after the first release of transcripts.db, added to a file that lacks them. */
function addColumns(db: Database.Database): void {
  const has = new Set(
    (db.prepare("PRAGMA table_info(transcripts)").all() as Array<{ name: string }>).map((c) => c.name),
  );
  if (!has.has("chosen_at")) db.exec("ALTER TABLE transcripts ADD COLUMN chosen_at INTEGER");
}

function boundItem(item: TranscriptItem): TranscriptItem {
  if (item.type === "approval") return { ...item, question: cutText(item.question, TRANSCRIPT_CAPS.args) };
  if (item.type === "interrupt") return { ...item, text: cutText(item.text, TRANSCRIPT_CAPS.input) };
  return {
    ...item,
    args: cutText(item.args, TRANSCRIPT_CAPS.args),
    ...(item.result === undefined ? {} : { result: cutText(item.result, TRANSCRIPT_CAPS.result) }),
  };
}

/** What an item says, for search and forget. */
function itemText(body: string): string {
  const i = JSON.parse(body) as TranscriptItem;
  if (i.type === "tool") return [i.name, i.args, i.result ?? ""].join("\n");
  return i.type === "approval" ? i.question : i.text;
}

function entryOf(r: Row, items: TranscriptItem[]): TranscriptEntry {
  return {
    id: r.id,
    kind: r.kind === "message" ? "message" : "turn",
    ...(r.request_id ? { requestId: r.request_id } : {}),
    ts: r.ts,
    ...(r.ended_at ? { endedAt: r.ended_at } : {}),
    source: r.source,
    channel: r.channel,
    noMemory: r.no_memory === 1,
    ...(r.new_topic === 1 ? { newTopic: true } : {}),
    ...(r.replaces ? { replaces: r.replaces } : {}),
    ...(r.chosen_at ? { chosenAt: r.chosen_at } : {}),
    input: r.input,
    reasoning: r.reasoning,
    reply: r.reply,
    status: r.status as TranscriptEntry["status"],
    ...(r.error ? { error: r.error } : {}),
    ...(r.message_kind ? { messageKind: r.message_kind } : {}),
    items,
  };
}

function checkLimit(limit: unknown): number {
  if (limit === undefined) return LIST_LIMITS.defaultLimit;
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > LIST_LIMITS.maxLimit) {
    throw new TranscriptError({
      code: "invalid_argument",
      message: `limit is a whole number from 1 to ${LIST_LIMITS.maxLimit}`,
    });
  }
  return limit as number;
}

function optionalText(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.length > 1_000) {
    throw new TranscriptError({ code: "invalid_argument", message: `${name} is a text of at most 1,000 characters` });
  }
  return value;
}

function checkBefore(before: unknown): number {
  if (!Number.isSafeInteger(before) || (before as number) < 1) {
    throw new TranscriptError({ code: "invalid_argument", message: "before is an entry id (a whole number over 0)" });
  }
  return before as number;
}
