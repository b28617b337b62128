/**
 * memory.db: one SQLite file for everything the agent remembers (context window, documents, graph, search
 * index). WAL so a write is durable when it commits (checkpointed between turns, not inside one:
 * wal-checkpoint.ts), foreign keys on, and `secure_delete` on so that text the user deleted is overwritten
 * instead of lingering in free pages. Each layer owns its own numbered
 * migration list (`migrateTables`), recorded per layer in `schema_versions`, so no two layers ever edit one
 * shared array.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type Database from "better-sqlite3";
import { HomeAgentError } from "../util/errors.js";
import { openUserDataDb } from "../util/sqlite-settings.js";
import { scheduleWalCheckpoints, type WalCheckpointOptions } from "./wal-checkpoint.js";

export type DB = Database.Database;

/**
 * `user_version` of a store that keeps per-layer versions. Versions 1–2 were the single-table RecentContext
 * schema; writing 3 makes such an older HomeAgent refuse this file ("newer … upgrade") instead of
 * misreading it.
 */
export const STORE_FORMAT = 3;

/** The single table of the format-1/2 store (RecentContext); legacy.ts moves its rows into the new layers. */
export const LEGACY_CONTEXT_TABLE = "context_events";

/** KiB of SQLite page cache for memory.db (see openMemoryStore). */
const PAGE_CACHE_KB = 4096;

export class MemoryStoreError extends HomeAgentError {}

export interface MemoryStoreOptions {
  /** When the log is checkpointed; false leaves it to SQLite (inside the commit that fills the log). */
  checkpoints?: WalCheckpointOptions | false;
}

export function openMemoryStore(path: string, opts: MemoryStoreOptions = {}): DB {
  mkdirSync(dirname(path), { recursive: true });
  const db = openUserDataDb(path, "the memory store");
  try {
    // Sorts and temporary tables of small results (graph recall's walk) would otherwise open a temporary
    // file each time: ≈ 1.5 ms per walk query at 10k entities instead of ≈ 0.2 ms.
    db.pragma("temp_store = MEMORY");
    // SQLite's page cache of this connection, in KiB. better-sqlite3's default of 16 MB fills as memory.db
    // grows (≈ 2.5 KB a remembered turn), so RSS grew with it for thousands of turns; pages it drops stay in
    // the OS's file cache. At 10k entities + 10k documents (a 20 MB file) a turn's memory work is as fast
    // with 4 MB (bench:memory p50 3.54–3.56 ms vs 3.58–3.60), and the soak's RSS growth per turn fell from
    // 4.8–7.6 to 2.4–3.7 KB (bench:soak).
    db.pragma(`cache_size = -${PAGE_CACHE_KB}`);
    prepareFormat(db, path);
    if (opts.checkpoints !== false) scheduleWalCheckpoints(db, opts.checkpoints);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function prepareFormat(db: DB, path: string): void {
  const format = db.pragma("user_version", { simple: true }) as number;
  if (format > STORE_FORMAT) {
    throw new MemoryStoreError({
      code: "memory_store_newer",
      message: `memory.db (${path}) is at format ${format}, newer than this HomeAgent (${STORE_FORMAT}): upgrade HomeAgent`,
    });
  }
  if (format > 0 && (format < STORE_FORMAT || hasTable(db, LEGACY_CONTEXT_TABLE))) upgradingThisStart.add(db);
  if (format === STORE_FORMAT) return;
  // An older single-table store: copy it aside before the first write of the new format touches it.
  if (format > 0) backupBeforeUpgrade(db, path, format);
  db.transaction(() => {
    db.exec("CREATE TABLE IF NOT EXISTS schema_versions (layer TEXT PRIMARY KEY, version INTEGER NOT NULL)");
    db.pragma(`user_version = ${STORE_FORMAT}`);
  })();
}

/**
 * Applies the migrations of one layer that this store has not seen yet, each in its own transaction with
 * its version. A store written by a newer HomeAgent (more versions than `migrations`) is refused.
 */
export function migrateTables(db: DB, layer: string, migrations: readonly string[]): void {
  const current = (db.prepare("SELECT version FROM schema_versions WHERE layer = ?").pluck().get(layer) ?? 0) as number;
  if (current > migrations.length) {
    throw new MemoryStoreError({
      code: "memory_store_newer",
      message: `the "${layer}" tables of memory.db are at version ${current}, newer than this HomeAgent (${migrations.length}): upgrade HomeAgent`,
    });
  }
  const record = db.prepare(
    "INSERT INTO schema_versions (layer, version) VALUES (?, ?) ON CONFLICT(layer) DO UPDATE SET version = excluded.version",
  );
  for (let v = current; v < migrations.length; v++) {
    db.transaction(() => {
      db.exec(migrations[v]);
      record.run(layer, v + 1);
    })();
  }
}

/** Whether `name` is a table of this store. */
export function hasTable(db: DB, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/**
 * Handles whose store was upgraded by this start (or still held rows to migrate when it opened): their
 * backups must survive this start, whatever happens later in it.
 */
const upgradingThisStart = new WeakSet<DB>();

/**
 * `memory.db.bak-<old format>` beside the store: a consistent copy (VACUUM INTO) taken before the upgrade
 * writes anything, so a failed upgrade can be undone by hand. An existing backup of the same format is kept.
 */
function backupBeforeUpgrade(db: DB, path: string, format: number): void {
  const target = `${path}.bak-${format}`;
  if (existsSync(target)) return;
  try {
    db.prepare("VACUUM INTO ?").run(target);
  } catch (err) {
    throw new MemoryStoreError({
      code: "memory_store_backup",
      message: `cannot write the backup ${target} before upgrading memory.db: free disk space or fix permissions, then restart`,
      cause: err,
    });
  }
}

/** The upgrade backups beside the store (`memory.db.bak-*`). */
export function upgradeBackups(db: DB): string[] {
  if (db.memory) return [];
  const prefix = `${basename(db.name)}.bak-`;
  return readdirSync(dirname(db.name))
    .filter((name) => name.startsWith(prefix))
    .map((name) => join(dirname(db.name), name));
}

/**
 * Deletes the upgrade backups once they are no longer needed: call after a start succeeded. Backups are
 * kept through the start that upgraded the store (or migrated its legacy rows), and while legacy rows
 * are still waiting. Returns the deleted paths.
 */
export function discardUpgradeBackups(db: DB): string[] {
  if (upgradingThisStart.has(db) || hasTable(db, LEGACY_CONTEXT_TABLE)) return [];
  const removed = upgradeBackups(db);
  for (const path of removed) rmSync(path, { force: true });
  return removed;
}
