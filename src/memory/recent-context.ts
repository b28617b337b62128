/**
 * RecentContext: the simple durable context window. Every event is written through to SQLite before
 * append returns; pruning keeps the newest events in the window and leaves older rows in the table,
 * marked out of the window, for the document layer to pick up later.
 */
import type { AppendRoom, ContextEvent, ContextWindow } from "./context-window.js";
import type { DB } from "./store.js";

interface Row {
  id: number;
  ts: number;
  role: ContextEvent["role"];
  source: string;
  channel: string;
  text: string;
  tools: string;
  unanswered: string | null;
}

export class RecentContext implements ContextWindow {
  private readonly appendWithRoom: (event: ContextEvent, room: AppendRoom) => number;
  private readonly insert;
  private readonly markRow;
  private readonly selectRecent;
  private readonly newestOut;
  private readonly evict;

  constructor(db: DB) {
    this.appendWithRoom = db.transaction((event: ContextEvent, room: AppendRoom) => {
      this.prune(room.query, room.keep - 1);
      return this.insertRow(event);
    });
    this.insert = db.prepare(
      "INSERT INTO context_events (ts, role, source, channel, text, tools) VALUES (@ts, @role, @source, @channel, @text, @tools)",
    );
    this.markRow = db.prepare("UPDATE context_events SET unanswered = ? WHERE id = ?");
    this.selectRecent = db.prepare(
      "SELECT id, ts, role, source, channel, text, tools, unanswered FROM context_events WHERE in_window = 1 ORDER BY id DESC LIMIT ?",
    );
    this.newestOut = db
      .prepare("SELECT id FROM context_events WHERE in_window = 1 ORDER BY id DESC LIMIT 1 OFFSET ?")
      .pluck();
    this.evict = db.prepare("UPDATE context_events SET in_window = 0 WHERE in_window = 1 AND id <= ?");
  }

  append(event: ContextEvent, room?: AppendRoom): number {
    return room ? this.appendWithRoom(event, room) : this.insertRow(event);
  }

  markUnanswered(id: number, reason: string): void {
    this.markRow.run(reason, id);
  }

  prune(_query: string, keep: number): void {
    // Two index lookups: the newest event that no longer fits, then everything up to it.
    const newestOut = this.newestOut.get(Math.max(0, keep)) as number | undefined;
    if (newestOut !== undefined) this.evict.run(newestOut);
  }

  private insertRow(event: ContextEvent): number {
    const { ts, role, source, channel, text } = event;
    const info = this.insert.run({ ts, role, source, channel, text, tools: JSON.stringify(event.tools ?? []) });
    return Number(info.lastInsertRowid);
  }

  recent(limit: number): ContextEvent[] {
    if (limit <= 0) return [];
    const rows = this.selectRecent.all(limit) as Row[];
    return rows.reverse().map(({ tools, unanswered, ...r }) => ({
      ...r,
      tools: JSON.parse(tools) as string[],
      ...(unanswered ? { unanswered } : {}),
    }));
  }
}
