import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import {
  discardUpgradeBackups,
  MemoryStoreError,
  migrateTables,
  openMemoryStore,
  STORE_FORMAT,
  upgradeBackups,
} from "./store.js";

test("memory.db runs in WAL with foreign keys and secure_delete on", () => {
  const db = openMemoryStore(join(tempDir("ha-store-"), "memory.db"));
  assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
  assert.equal(db.pragma("foreign_keys", { simple: true }), 1);
  assert.equal(db.pragma("secure_delete", { simple: true }), 1);
  assert.equal(db.pragma("user_version", { simple: true }), STORE_FORMAT);
  db.close();
});

test("sorts and temporary tables stay in memory (a temporary file per graph walk cost ≈ 0.8 ms)", () => {
  const db = openMemoryStore(join(tempDir("ha-store-"), "memory.db"));
  assert.equal(db.pragma("temp_store", { simple: true }), 2, "2 = MEMORY");
  db.close();
});

test("the page cache is capped at 4 MB, not the driver's 16 MB that grew RSS with every remembered turn", () => {
  const db = openMemoryStore(join(tempDir("ha-store-"), "memory.db"));
  assert.equal(db.pragma("cache_size", { simple: true }), -4096, "negative = KiB");
  db.close();
});

test("deleted text does not linger in the file's free pages", () => {
  const path = join(tempDir("ha-store-"), "memory.db");
  const db = openMemoryStore(path);
  const secret = "my-bank-pin-is-SECRET-4711";
  db.exec("CREATE TABLE notes (t TEXT)");
  const insert = db.prepare("INSERT INTO notes VALUES (?)");
  db.transaction(() => {
    for (let i = 0; i < 200; i++) insert.run(`${secret} ${i} ${"x".repeat(200)}`);
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  assert.ok(readFileSync(path).includes(secret), "the text reached the main file");
  db.exec("DELETE FROM notes");
  db.pragma("wal_checkpoint(TRUNCATE)");
  assert.ok(!readFileSync(path).includes(secret), "the deleted text is overwritten");
  db.close();
});

test("migrateTables applies each layer's migrations once and records the version per layer", () => {
  const path = join(tempDir("ha-store-"), "memory.db");
  let db = openMemoryStore(path);
  migrateTables(db, "a", ["CREATE TABLE a1 (x)"]);
  migrateTables(db, "b", ["CREATE TABLE b1 (x)", "ALTER TABLE b1 ADD COLUMN y"]);
  db.close();
  db = openMemoryStore(path);
  // Re-running is a no-op; a longer list applies only the new step.
  migrateTables(db, "a", ["CREATE TABLE a1 (x)", "ALTER TABLE a1 ADD COLUMN z"]);
  migrateTables(db, "b", ["CREATE TABLE b1 (x)", "ALTER TABLE b1 ADD COLUMN y"]);
  const versions = db.prepare("SELECT layer, version FROM schema_versions ORDER BY layer").all();
  assert.deepEqual(versions, [
    { layer: "a", version: 2 },
    { layer: "b", version: 2 },
  ]);
  assert.deepEqual(db.prepare("SELECT name FROM pragma_table_info('a1')").pluck().all(), ["x", "z"]);
  db.close();
});

test("a failing migration leaves its layer at the last good version", () => {
  const db = openMemoryStore(join(tempDir("ha-store-"), "memory.db"));
  assert.throws(() => migrateTables(db, "a", ["CREATE TABLE a1 (x)", "CREATE TABLE a2 (x); NOT SQL"]));
  assert.equal(db.prepare("SELECT version FROM schema_versions WHERE layer = 'a'").pluck().get(), 1);
  assert.equal(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'a2'").pluck().get(), 0);
  db.close();
});

test("tables of a newer HomeAgent are refused with what to do", () => {
  const db = openMemoryStore(join(tempDir("ha-store-"), "memory.db"));
  migrateTables(db, "a", ["CREATE TABLE a1 (x)", "CREATE TABLE a2 (x)"]);
  assert.throws(
    () => migrateTables(db, "a", ["CREATE TABLE a1 (x)"]),
    (err: unknown) =>
      err instanceof MemoryStoreError && err.code === "memory_store_newer" && /upgrade/.test(err.message),
  );
  db.close();
});

test("a store of a newer format is refused, not opened", () => {
  const path = join(tempDir("ha-store-"), "memory.db");
  const raw = new Database(path);
  raw.pragma(`user_version = ${STORE_FORMAT + 1}`);
  raw.close();
  assert.throws(
    () => openMemoryStore(path),
    (err: unknown) => err instanceof MemoryStoreError && err.code === "memory_store_newer",
  );
});

test("an old-format store is backed up before the upgrade, and the backup outlives that start only", () => {
  const path = join(tempDir("ha-store-"), "memory.db");
  const raw = new Database(path);
  raw.exec("CREATE TABLE old_rows (t TEXT); INSERT INTO old_rows VALUES ('before the upgrade')");
  raw.pragma("user_version = 2");
  raw.close();

  const first = openMemoryStore(path);
  const backup = `${path}.bak-2`;
  assert.deepEqual(upgradeBackups(first), [backup]);
  const copy = new Database(backup, { readonly: true });
  assert.equal(copy.pragma("user_version", { simple: true }), 2, "the backup is the store as it was");
  assert.equal(copy.prepare("SELECT t FROM old_rows").pluck().get(), "before the upgrade");
  copy.close();
  assert.deepEqual(discardUpgradeBackups(first), [], "kept through the start that upgraded");
  first.close();

  const second = openMemoryStore(path);
  assert.deepEqual(discardUpgradeBackups(second), [backup]);
  assert.ok(!existsSync(backup));
  second.close();
});
