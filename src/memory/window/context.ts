/**
 * RelevanceContext: the context window behind the prompt's timeline, written through to memory.db (every
 * method is durable when it resolves, so an acknowledged turn survives kill -9). Each event that is not
 * NoMemory is searchable as `ctx:<id>`; `prune` keeps the newest events and the ones most related to the
 * current input, and moves the rest into the document layer in the same transaction that removes them
 * from the window, so nothing is ever in neither layer (nor in both).
 *
 * A user turn asked again or edited (`replace`) leaves the window for `context_versions`, exactly as it was,
 * so it can be chosen back (`choose`) in one transaction; a channel's stashed versions go when it has a new
 * turn, since only the last turn's versions can be chosen. They are not searchable and never archived.
 */
import type {
  ContextEvent,
  ContextEventKind,
  ContextWindow,
  NewContextEvent,
  ToolResultRecord,
} from "../../kernel/types.js";
import type { IndexWriter, PreparedQuery, SearchIndex } from "../../retrieval/search.js";
import { HomeAgentError } from "../../util/errors.js";
import type { DocStore, DocWithTurns } from "../documents/documents.js";
import { vectorText } from "../event-text.js";
import { type DB, migrateTables } from "../store.js";

export interface RelevanceContextOptions {
  /**
   * Events the window may hold whatever the callers prune: past it, an insert moves the oldest events to
   * the documents itself (archived like a prune, reported to `onOverflow`), so the table stays bounded
   * without losing anything. Default 1,000.
   */
  maxEvents?: number;
  /** The newest events a prune always keeps (default 10). */
  protectRecent?: number;
  /** Sources whose pruned events are dropped, not archived (default agentcli, terminal). */
  noArchiveSources?: readonly string[];
  onOverflow?: (events: ContextEvent[]) => void;
  /**
   * A version of a turn left the window and another came in (`replace`, `choose`): called inside the same
   * transaction, so what memory keeps of each (their distill candidates) changes with the window or not at all.
   */
  onSwap?: (left: ContextEvent, came: NewContextEvent) => void;
}

export const CONTEXT_LIMITS = {
  /** Characters of one event: input, response and tool results together. */
  eventChars: 2_000_000,
  nameChars: 200,
  maxEvents: 100_000,
} as const;

const KINDS: readonly ContextEventKind[] = ["user", "agent", "cold_storage"];

export class ContextError extends HomeAgentError {}

const MIGRATIONS = [
  `CREATE TABLE context_window (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     ts INTEGER NOT NULL,
     kind TEXT NOT NULL CHECK (kind IN ('user', 'agent', 'cold_storage')),
     source TEXT NOT NULL,
     channel TEXT NOT NULL,
     input TEXT NOT NULL DEFAULT '',
     response TEXT NOT NULL DEFAULT '',
     tools_used TEXT NOT NULL DEFAULT '[]',
     tool_results TEXT NOT NULL DEFAULT '[]',
     no_memory INTEGER NOT NULL DEFAULT 0,
     clean_input TEXT,
     unanswered TEXT
   );
   CREATE INDEX context_window_ts ON context_window(ts, id);`,
  "ALTER TABLE context_window ADD COLUMN request_id TEXT",
  `CREATE TABLE context_versions (
     request_id TEXT PRIMARY KEY,
     channel TEXT NOT NULL,
     stashed_at INTEGER NOT NULL,
     event TEXT NOT NULL
   );
   CREATE INDEX context_versions_channel ON context_versions(channel, stashed_at);`,
];

/** Versions kept of one channel's last turn: asked again more often than this, the oldest go. */
export const MAX_TURN_VERSIONS = 20;

interface Row {
  id: number;
  ts: number;
  kind: ContextEventKind;
  source: string;
  channel: string;
  input: string;
  response: string;
  tools_used: string;
  tool_results: string;
  no_memory: number;
  clean_input: string | null;
  unanswered: string | null;
  request_id: string | null;
}

export function contextItemId(eventId: number): string {
  return `ctx:${eventId}`;
}

export class RelevanceContext implements ContextWindow {
  private readonly maxEvents: number;
  private readonly protectRecent: number;
  private readonly noArchive: ReadonlySet<string>;
  private readonly st;

  constructor(
    db: DB,
    private readonly index: SearchIndex,
    private readonly docs: DocStore,
    private readonly opts: RelevanceContextOptions = {},
  ) {
    this.maxEvents = opts.maxEvents ?? 1_000;
    this.protectRecent = opts.protectRecent ?? 10;
    this.noArchive = new Set(opts.noArchiveSources ?? ["agentcli", "terminal"]);
    if (!Number.isInteger(this.maxEvents) || this.maxEvents < 1 || this.maxEvents > CONTEXT_LIMITS.maxEvents) {
      throw new ContextError({
        code: "context_invalid",
        message: `maxEvents must be an integer from 1 to ${CONTEXT_LIMITS.maxEvents}, got ${this.maxEvents}`,
      });
    }
    migrateTables(db, "context", MIGRATIONS);
    this.st = {
      insert: db.prepare(
        `INSERT INTO context_window (ts, kind, source, channel, input, response, tools_used, tool_results, no_memory,
           clean_input, unanswered, request_id)
         VALUES (@ts, @kind, @source, @channel, @input, @response, @tools_used, @tool_results, @no_memory,
           @clean_input, @unanswered, @request_id)`,
      ),
      all: db.prepare("SELECT * FROM context_window ORDER BY ts, id"),
      byId: db.prepare("SELECT * FROM context_window WHERE id = ?"),
      respond: db.prepare("UPDATE context_window SET response = ?, tools_used = ?, tool_results = ? WHERE id = ?"),
      unanswered: db.prepare("UPDATE context_window SET unanswered = ? WHERE id = ?"),
      delete: db.prepare("DELETE FROM context_window WHERE id = ?"),
      count: db.prepare("SELECT COUNT(*) FROM context_window").pluck(),
      oldest: db.prepare("SELECT id FROM context_window ORDER BY ts, id LIMIT ?").pluck(),
      ids: db.prepare("SELECT id FROM context_window ORDER BY ts, id").pluck(),
      stash: db.prepare(
        "INSERT OR REPLACE INTO context_versions (request_id, channel, stashed_at, event) VALUES (?, ?, ?, ?)",
      ),
      stashed: db.prepare("SELECT event FROM context_versions WHERE request_id = ? AND channel = ?").pluck(),
      unstash: db.prepare("DELETE FROM context_versions WHERE request_id = ?"),
      dropVersions: db.prepare("DELETE FROM context_versions WHERE channel = ?"),
      trimVersions: db.prepare(
        `DELETE FROM context_versions WHERE channel = ? AND request_id NOT IN
           (SELECT request_id FROM context_versions WHERE channel = ? ORDER BY stashed_at DESC, rowid DESC LIMIT ?)`,
      ),
      allVersions: db.prepare("SELECT request_id AS requestId, event FROM context_versions"),
      versionChannels: db.prepare("SELECT DISTINCT channel FROM context_versions").pluck(),
      channelsOf: db
        .prepare(
          "SELECT DISTINCT channel FROM context_window WHERE request_id IS NOT NULL AND id IN (SELECT value FROM json_each(?))",
        )
        .pluck(),
      lastTurn: db.prepare(
        `SELECT id, request_id AS requestId FROM context_window WHERE channel = ? AND request_id IS NOT NULL
         ORDER BY ts DESC, id DESC LIMIT 1`,
      ),
    };
  }

  async append(e: NewContextEvent): Promise<number> {
    check(e);
    return this.inserting((w) => {
      // A new turn of the channel: its last turn's versions can no longer be chosen.
      if (e.requestId !== undefined) this.st.dropVersions.run(e.channel);
      return this.insertWith(w, [e])[0];
    });
  }

  async insertByTimestamp(events: NewContextEvent[]): Promise<number[]> {
    for (const e of events) check(e);
    return this.inserting((w) => this.insertWith(w, events));
  }

  async respond(
    id: number,
    r: { response: string; toolsUsed: string[]; toolResults: ToolResultRecord[] },
  ): Promise<void> {
    this.index.write((w) => {
      const event = this.event(id);
      if (!event) {
        throw new ContextError({
          code: "context_event_gone",
          message: `context event ${id} is no longer in the window, so its reply cannot join it: prune before appending a turn's input, not while the turn runs`,
        });
      }
      const next: ContextEvent = { ...event, ...r };
      check(next);
      this.st.respond.run(r.response, JSON.stringify(r.toolsUsed), JSON.stringify(r.toolResults), id);
      this.reindex(w, next);
    });
  }

  async markUnanswered(id: number, reason: string): Promise<void> {
    this.st.unanswered.run(reason.slice(0, 1_000), id);
  }

  /**
   * Keeps at most `keep` events: the newest `protectRecent`, `spare` and each channel's last turn that has
   * versions always, then the best-scored for `query` among the older ones. The others leave the window and,
   * in the same transaction, become one document (except NoMemory events and the sources that are never
   * archived). Returns every event that left.
   */
  async prune(query: string | PreparedQuery, keep: number, spare: readonly number[] = []): Promise<ContextEvent[]> {
    if (!Number.isInteger(keep) || keep < 0) {
      throw new ContextError({ code: "context_invalid", message: `prune keeps a whole number of events, got ${keep}` });
    }
    // Ids only: this runs on every user turn, and only the events that leave are read whole (by evictWith).
    const ids = this.st.ids.all() as number[];
    if (ids.length <= keep) return [];
    // Kept whatever the ranking: the newest, the turn about to be replaced, and a last turn with versions (one
    // chosen back keeps its old time, so it may sit behind newer events).
    const held = new Set([
      ...ids.slice(ids.length - Math.min(this.protectRecent, keep)),
      ...spare,
      ...this.versioned(),
    ]);
    const older = ids.filter((id) => !held.has(id));
    const slots = keep - (ids.length - older.length);
    const kept = new Set<number>();
    if (slots > 0) {
      const scores = await this.index.scoreIds(query, older.map(contextItemId));
      const ranked = older
        .map((id, order) => ({ id, order, score: scores.get(contextItemId(id)) ?? 0 }))
        .sort((a, b) => b.score - a.score || b.order - a.order);
      for (const r of ranked.slice(0, slots)) kept.add(r.id);
    }
    const out = older.filter((id) => !kept.has(id));
    return this.index.write((w) => this.evictWith(w, out));
  }

  /**
   * Brings the best-matching documents back into the window: they leave the document layer and their
   * turns become `cold_storage` events at their original timestamps, in one transaction.
   */
  async recallDocs(query: string | PreparedQuery, topK: number): Promise<{ docs: DocWithTurns[]; eventIds: number[] }> {
    const ranked = await this.docs.rank(query, topK);
    return this.inserting((w) => {
      const docs = this.docs.take(
        ranked.map((r) => r.docId),
        w,
      );
      return { docs, eventIds: this.insertWith(w, docs.flatMap(coldEvents)) };
    });
  }

  async replace(oldId: number, e: NewContextEvent): Promise<{ id: number; replaced: ContextEvent }> {
    check(e);
    return this.inserting((w) => {
      const replaced = this.event(oldId);
      if (!replaced) {
        throw new ContextError({
          code: "context_event_gone",
          message: `context event ${oldId} is no longer in the window (archived or forgotten), so it cannot be replaced: send the message as a new one`,
        });
      }
      this.st.delete.run(oldId);
      w.remove([contextItemId(oldId)]);
      this.stash(replaced);
      this.opts.onSwap?.(replaced, e);
      return { id: this.insertWith(w, [e])[0], replaced };
    });
  }

  /**
   * Version `requestId` of the channel's last turn, stashed when it was replaced, takes the place of the one
   * in the window (which is stashed in turn), in one transaction: the window holds exactly one version.
   * Null when it is the one in the window already; refused ("invalid_argument") when it is not a version of
   * the channel's last turn (or was forgotten).
   */
  async choose(channel: string, requestId: string): Promise<{ chosen: ContextEvent; replaced: ContextEvent } | null> {
    return this.inserting((w) => {
      const last = this.lastTurn(channel);
      if (last?.requestId === requestId) return null;
      const stashed = last ? (this.st.stashed.get(requestId, channel) as string | undefined) : undefined;
      const replaced = last ? this.event(last.id) : null;
      if (!last || !stashed || !replaced) {
        throw new ContextError({
          code: "invalid_argument",
          message: `"${requestId}" is not a version of channel "${channel}"'s last turn still in the context window: send the message as a new one`,
        });
      }
      this.st.delete.run(last.id);
      w.remove([contextItemId(last.id)]);
      this.st.unstash.run(requestId);
      this.stash(replaced);
      const event = JSON.parse(stashed) as NewContextEvent;
      this.opts.onSwap?.(replaced, event);
      const id = this.insertWith(w, [event])[0];
      return { chosen: this.event(id)!, replaced };
    });
  }

  /** The stashed versions whose text `mentions` accepts, by request id; removed when `remove` (forgetting). */
  forgetVersions(mentions: (text: string) => boolean, remove: boolean): number {
    const rows = this.st.allVersions.all() as Array<{ requestId: string; event: string }>;
    const hits = rows.filter((r) => mentions(r.event));
    if (remove) for (const r of hits) this.st.unstash.run(r.requestId);
    return hits.length;
  }

  /** The events that are the last turn of a channel with stashed versions. */
  private versioned(): number[] {
    const channels = this.st.versionChannels.all() as string[];
    return channels.flatMap((c) => this.lastTurn(c)?.id ?? []);
  }

  /** Keeps a replaced user turn (its version) as it was, at most MAX_TURN_VERSIONS a channel. */
  private stash(e: ContextEvent): void {
    if (e.requestId === undefined) return;
    const { id: _, ...event } = e;
    this.st.stash.run(e.requestId, e.channel, Date.now(), JSON.stringify(event));
    this.st.trimVersions.run(e.channel, e.channel, MAX_TURN_VERSIONS);
  }

  lastTurn(channel: string): { id: number; requestId: string } | null {
    return (this.st.lastTurn.get(channel) as { id: number; requestId: string } | undefined) ?? null;
  }

  async remove(ids: number[]): Promise<number> {
    return this.index.write((w) => {
      const ended = this.lastTurnsAmong(ids);
      let n = 0;
      for (const id of ids) n += this.st.delete.run(id).changes;
      w.remove(ids.map(contextItemId));
      for (const channel of ended) this.st.dropVersions.run(channel);
      return n;
    });
  }

  /**
   * The channels whose last turn is among `ids`: once it leaves the window (archived, forgotten), its versions
   * can no longer be chosen — nor may they take the place of the turn before it, which would be last then.
   */
  private lastTurnsAmong(ids: readonly number[]): string[] {
    if (ids.length === 0) return [];
    const leaving = new Set(ids);
    const channels = this.st.channelsOf.all(JSON.stringify(ids)) as string[];
    return channels.filter((c) => {
      const last = this.lastTurn(c);
      return last !== null && leaving.has(last.id);
    });
  }

  async window(): Promise<ContextEvent[]> {
    return this.events();
  }

  /** The window, ordered by ts then id (synchronous, for callers already inside a transaction). */
  events(): ContextEvent[] {
    return (this.st.all.all() as Row[]).map(toEvent);
  }

  event(id: number): ContextEvent | null {
    const row = this.st.byId.get(id) as Row | undefined;
    return row ? toEvent(row) : null;
  }

  size(): number {
    return this.st.count.get() as number;
  }

  /**
   * Inserts events and indexes them, inside the caller's `index.write`; no overflow check (the caller
   * inserts a bounded batch, e.g. a migration).
   */
  insertWith(w: IndexWriter, events: readonly NewContextEvent[]): number[] {
    return events.map((e) => {
      const id = Number(
        this.st.insert.run({
          ts: e.ts,
          kind: e.kind,
          source: e.source,
          channel: e.channel,
          input: e.input,
          response: e.response ?? "",
          tools_used: JSON.stringify(e.toolsUsed ?? []),
          tool_results: JSON.stringify(e.toolResults ?? []),
          no_memory: e.noMemory ? 1 : 0,
          clean_input: e.cleanInput ?? null,
          unanswered: e.unanswered ?? null,
          request_id: e.requestId ?? null,
        }).lastInsertRowid,
      );
      this.reindex(w, this.event(id)!);
      return id;
    });
  }

  /** An insert followed, in the same transaction, by the overflow guard; reports what overflowed. */
  private inserting<T>(fn: (w: IndexWriter) => T): T {
    let overflow: ContextEvent[] = [];
    const result = this.index.write((w) => {
      const out = fn(w);
      const excess = this.size() - this.maxEvents;
      if (excess > 0) overflow = this.evictWith(w, this.st.oldest.all(excess) as number[]);
      return out;
    });
    if (overflow.length > 0) this.opts.onOverflow?.(overflow);
    return result;
  }

  /** Removes these events from the window and archives the ones that may be, in the caller's transaction. */
  private evictWith(w: IndexWriter, ids: readonly number[]): ContextEvent[] {
    const ended = this.lastTurnsAmong(ids);
    const gone: ContextEvent[] = [];
    for (const id of ids) {
      const e = this.event(id);
      if (!e) continue;
      this.st.delete.run(id);
      gone.push(e);
    }
    const archivable = gone.filter((e) => !e.noMemory && !this.noArchive.has(e.source));
    // Archived first: a turn item takes its window item's place (same text: no tokenizing or embedding again).
    if (archivable.length > 0) this.docs.archive(archivable, "context_archived", w, (e) => contextItemId(e.id));
    w.remove(gone.map((e) => contextItemId(e.id)));
    for (const channel of ended) this.st.dropVersions.run(channel);
    return gone;
  }

  private reindex(w: IndexWriter, e: ContextEvent): void {
    const text = vectorText(e);
    if (!text) {
      w.remove([contextItemId(e.id)]);
      return;
    }
    w.upsert([
      {
        id: contextItemId(e.id),
        kind: "context",
        text,
        ts: e.ts,
        meta: { source: e.source, channel: e.channel, eventKind: e.kind },
      },
    ]);
  }
}

/** A recalled document as window events: its turns, or (a manual document) its whole text as one event. */
function coldEvents(d: DocWithTurns): NewContextEvent[] {
  if (d.turns.length > 0) {
    return d.turns.map((t) => ({
      ts: t.ts,
      kind: "cold_storage",
      source: t.source,
      channel: t.channel,
      input: t.input,
      response: t.response,
    }));
  }
  return [
    { ts: d.tsStart, kind: "cold_storage", source: d.source, channel: "document", input: d.content, response: "" },
  ];
}

function toEvent(r: Row): ContextEvent {
  return {
    id: r.id,
    ts: r.ts,
    kind: r.kind,
    source: r.source,
    channel: r.channel,
    input: r.input,
    response: r.response,
    toolsUsed: JSON.parse(r.tools_used) as string[],
    toolResults: JSON.parse(r.tool_results) as ToolResultRecord[],
    noMemory: r.no_memory === 1,
    ...(r.clean_input !== null ? { cleanInput: r.clean_input } : {}),
    ...(r.unanswered !== null ? { unanswered: r.unanswered } : {}),
    ...(r.request_id !== null ? { requestId: r.request_id } : {}),
  };
}

function check(e: NewContextEvent): void {
  const bad = (message: string) => new ContextError({ code: "context_invalid", message });
  if (!Number.isSafeInteger(e.ts) || e.ts < 0) throw bad(`a context event's ts must be unix milliseconds, got ${e.ts}`);
  if (!KINDS.includes(e.kind)) throw bad(`unknown context event kind "${e.kind}": use one of ${KINDS.join(", ")}`);
  for (const [name, v] of [
    ["source", e.source],
    ["channel", e.channel],
  ] as const) {
    if (typeof v !== "string" || !v || v.length > CONTEXT_LIMITS.nameChars) {
      throw bad(
        `a context event's ${name} must be 1–${CONTEXT_LIMITS.nameChars} characters, got "${String(v).slice(0, 80)}"`,
      );
    }
  }
  let chars = e.input.length + (e.response?.length ?? 0) + (e.cleanInput?.length ?? 0);
  for (const r of e.toolResults ?? []) chars += r.content.length + (r.clean?.length ?? 0);
  if (chars > CONTEXT_LIMITS.eventChars) {
    throw new ContextError({
      code: "context_event_too_large",
      message: `a context event holds at most ${CONTEXT_LIMITS.eventChars} characters (got ${chars}): cap the tool result or input before it reaches memory`,
    });
  }
}
