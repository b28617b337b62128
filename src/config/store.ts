/**
 * The SQLite file behind the config center: raw key/value rows and the disabled-plugin list, nothing about
 * what the keys mean. Every write goes straight to the WAL (design principle 3), so the file stays the
 * single source of truth. Single values read are kept in memory (several settings are read on every turn,
 * and a query each costs more than the rest of the read): this store is the only writer of its file, and
 * it updates the copy with each write and drops it when a transaction is rolled back.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

export interface DisabledPlugin {
  name: string;
  /** Unix milliseconds. */
  disabledAt: number;
  disabledBy: string;
}

export interface Row {
  key: string;
  value: string;
}

/** Values kept in memory at most; beyond it the copy starts again (a plugin may read any number of keys). */
const CACHED_VALUES = 4096;

/**
 * A hand-edited row may hold a BLOB or a number where text belongs; read every value as text so that
 * validation, not a TypeError deep in a consumer, decides what to do with it.
 */
const AS_TEXT = (column: string) => `CAST(${column} AS TEXT) AS ${column}`;

export class ConfigStore {
  /** Key → stored value, or undefined for a key known to have none. */
  private readonly cache = new Map<string, string | undefined>();
  private readonly getStmt: Database.Statement;
  private readonly putStmt: Database.Statement;
  private readonly deleteStmt: Database.Statement;

  private constructor(private readonly db: Database.Database) {
    this.getStmt = db.prepare(`SELECT ${AS_TEXT("value")} FROM config WHERE key = ?`);
    this.putStmt = db.prepare(
      "INSERT INTO config (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    );
    this.deleteStmt = db.prepare("DELETE FROM config WHERE key = ?");
  }

  static open(file: string): ConfigStore {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    // FULL makes each committed write survive power loss, not just a process crash.
    db.pragma("synchronous = FULL");
    db.exec(`
      CREATE TABLE IF NOT EXISTS config (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS disabled_plugins (name TEXT PRIMARY KEY, disabled_at INTEGER, disabled_by TEXT);
    `);
    return new ConfigStore(db);
  }

  get(key: string): string | undefined {
    if (this.cache.has(key)) return this.cache.get(key);
    const value = (this.getStmt.get(key) as { value: string } | undefined)?.value;
    this.remember(key, value);
    return value;
  }

  put(key: string, value: string): void {
    this.putStmt.run(key, value);
    this.remember(key, value);
  }

  /**
   * Writes every change in one transaction (undefined deletes the row): all are stored or, when one fails,
   * none, on disk and in the copy alike. Returns the keys whose row changed.
   */
  setMany(changes: ReadonlyArray<readonly [string, string | undefined]>): string[] {
    const changed: string[] = [];
    this.transaction(() => {
      for (const [key, value] of changes) {
        const run = value === undefined ? this.deleteStmt.run(key) : this.putStmt.run(key, value);
        if (run.changes > 0) changed.push(key);
      }
    });
    for (const [key, value] of changes) this.remember(key, value);
    return changed;
  }

  /** Stores the value only when the key has none; true when it was stored. */
  putIfAbsent(key: string, value: string): boolean {
    const stored =
      this.db.prepare("INSERT OR IGNORE INTO config (key, value) VALUES (?, ?)").run(key, value).changes > 0;
    if (stored) this.remember(key, value);
    return stored;
  }

  /** True when a row was removed. */
  delete(key: string): boolean {
    const removed = this.deleteStmt.run(key).changes > 0;
    this.remember(key, undefined);
    return removed;
  }

  /** Stored rows whose key starts with `prefix` (literally: LIKE would treat "_" as a wildcard), by key. */
  rows(prefix = ""): Row[] {
    return this.db
      .prepare(`SELECT ${AS_TEXT("key")}, ${AS_TEXT("value")} FROM config WHERE instr(key, ?) = 1 ORDER BY key`)
      .all(prefix) as Row[];
  }

  count(prefix: string): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM config WHERE instr(key, ?) = 1").get(prefix) as { n: number }).n;
  }

  transaction<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn)();
    } catch (err) {
      // Rolled back: the copy may hold values written inside it.
      this.cache.clear();
      throw err;
    }
  }

  private remember(key: string, value: string | undefined): void {
    if (this.cache.size >= CACHED_VALUES && !this.cache.has(key)) this.cache.clear();
    this.cache.set(key, value);
  }

  /** Tables `config_<sanitised name>` of the old per-plugin storage, still to be migrated. */
  oldPluginTables(): string[] {
    const rows = this.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'config_*' ORDER BY name")
      .all() as { name: string }[];
    return rows.map((r) => r.name);
  }

  tableRows(table: string): Row[] {
    return this.db
      .prepare(`SELECT ${AS_TEXT("key")}, ${AS_TEXT("value")} FROM "${quoted(table)}" ORDER BY key`)
      .all() as Row[];
  }

  dropTable(table: string): void {
    this.db.exec(`DROP TABLE "${quoted(table)}"`);
  }

  disablePlugin(name: string, by: string): void {
    this.db
      .prepare("INSERT OR REPLACE INTO disabled_plugins (name, disabled_at, disabled_by) VALUES (?, ?, ?)")
      .run(name, Date.now(), by);
  }

  enablePlugin(name: string): void {
    this.db.prepare("DELETE FROM disabled_plugins WHERE name = ?").run(name);
  }

  isPluginDisabled(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM disabled_plugins WHERE name = ?").get(name) !== undefined;
  }

  disabledPlugins(): DisabledPlugin[] {
    const rows = this.db.prepare("SELECT name, disabled_at, disabled_by FROM disabled_plugins ORDER BY name").all() as {
      name: string;
      disabled_at: number;
      disabled_by: string;
    }[];
    return rows.map((r) => ({ name: r.name, disabledAt: r.disabled_at, disabledBy: r.disabled_by }));
  }

  close(): void {
    this.db.close();
  }
}

/** A table name as the inside of a double-quoted SQL identifier. */
function quoted(table: string): string {
  return table.replaceAll('"', '""');
}
