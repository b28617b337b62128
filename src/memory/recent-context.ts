/**
 * RecentContext: the simple durable context window. Every event is written through to SQLite before
 * append returns; pruning keeps the newest events in the window and leaves older rows in the table,
 * marked out of the window, for the document layer to pick up later.
 */
import type { ContextEvent, ContextWindow } from "./context-window.js";
import type { DB } from "./store.js";

export class RecentContext implements ContextWindow {
  private readonly insert;
  private readonly selectRecent;
  private readonly evict;

  constructor(db: DB) {
    this.insert = db.prepare(
      "INSERT INTO context_events (ts, role, source, channel, text, tools) VALUES (@ts, @role, @source, @channel, @text, @tools)",
    );
    this.selectRecent = db.prepare(
      "SELECT ts, role, source, channel, text, tools FROM context_events WHERE in_window = 1 ORDER BY id DESC LIMIT ?",
    );
    this.evict = db.prepare(
      `UPDATE context_events SET in_window = 0 WHERE in_window = 1 AND id NOT IN
         (SELECT id FROM context_events WHERE in_window = 1 ORDER BY id DESC LIMIT ?)`,
    );
  }

  append(event: ContextEvent): void {
    this.insert.run({ ...event, tools: JSON.stringify(event.tools ?? []) });
  }

  prune(_query: string, keep: number): void {
    this.evict.run(Math.max(0, keep));
  }

  recent(limit: number): ContextEvent[] {
    if (limit <= 0) return [];
    const rows = this.selectRecent.all(limit) as Array<Omit<ContextEvent, "tools"> & { tools: string }>;
    return rows.reverse().map((r) => ({ ...r, tools: JSON.parse(r.tools) as string[] }));
  }
}
