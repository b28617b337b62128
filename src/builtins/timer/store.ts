/**
 * Timers in SQLite (`plugin_data/timer/timers.db`), written before timer_set answers, so a timer the user
 * was told about survives `kill -9` and a restart. One row per timer: a one-time one is deleted when it
 * fires; a recurring one gets its next due time.
 */
import Database from "better-sqlite3";

export interface TimerRow {
  id: number;
  /** The output channel it was set from: where it is delivered. */
  channel: string;
  message: string;
  /** "" for a one-time timer. */
  cron: string;
  due_at: number;
  created_at: number;
}

export class TimerStore {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    // A forgotten reminder's text is overwritten, not just unlinked from the page.
    this.db.pragma("secure_delete = ON");
    this.db.exec(`CREATE TABLE IF NOT EXISTS timers (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      channel TEXT NOT NULL,
      message TEXT NOT NULL,
      cron TEXT NOT NULL DEFAULT '',
      due_at INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    )`);
  }

  add(row: Omit<TimerRow, "id">): TimerRow {
    const info = this.db
      .prepare("INSERT INTO timers (channel, message, cron, due_at, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(row.channel, row.message, row.cron, row.due_at, row.created_at);
    return { ...row, id: Number(info.lastInsertRowid) };
  }

  all(): TimerRow[] {
    return this.db.prepare("SELECT * FROM timers ORDER BY due_at, id").all() as TimerRow[];
  }

  count(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM timers").get() as { n: number }).n;
  }

  /** Timers due at or before `now`, the earliest first. */
  due(now: number): TimerRow[] {
    return this.db.prepare("SELECT * FROM timers WHERE due_at <= ? ORDER BY due_at, id").all(now) as TimerRow[];
  }

  nextDue(): number | undefined {
    return (this.db.prepare("SELECT min(due_at) AS t FROM timers").get() as { t: number | null }).t ?? undefined;
  }

  reschedule(id: number, dueAt: number): void {
    this.db.prepare("UPDATE timers SET due_at = ? WHERE id = ?").run(dueAt, id);
  }

  remove(id: number): boolean {
    return this.db.prepare("DELETE FROM timers WHERE id = ?").run(id).changes > 0;
  }

  /** After a forget: the WAL's copies of removed rows are gone too. */
  checkpoint(): void {
    this.db.pragma("wal_checkpoint(TRUNCATE)");
  }

  close(): void {
    this.db.close();
  }
}
