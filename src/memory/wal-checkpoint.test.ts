/** WAL checkpoints happen on an idle timer, not inside the commit of a turn that fills the log. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { openMemoryStore } from "./store.js";
import { checkpointWal, scheduleWalCheckpoints, WAL_CHECKPOINT_DEFAULTS } from "./wal-checkpoint.js";

const PAGE = 4096;

/** `n` commits of about one page each. */
function writePages(db: Database.Database, n: number): void {
  db.exec("CREATE TABLE IF NOT EXISTS pages (b BLOB)");
  const insert = db.prepare("INSERT INTO pages VALUES (?)");
  for (let i = 0; i < n; i++) insert.run(Buffer.alloc(PAGE - 200, i % 251));
}

test("no commit checkpoints the log past SQLite's 1,000-page default: that work is left to the timer", () => {
  const db = openMemoryStore(join(tempDir("ha-wal-"), "memory.db"), { checkpoints: { everyMs: 3_600_000 } });
  assert.equal(db.pragma("wal_autocheckpoint", { simple: true }), WAL_CHECKPOINT_DEFAULTS.backstopPages);
  writePages(db, 1_500);
  const done = checkpointWal(db);
  assert.ok(done && done.log >= 1_500, `the log kept every commit (${done?.log} pages): none checkpointed it`);
  assert.equal(done.checkpointed, done.log, "an idle PASSIVE checkpoint copies the whole log");
  db.close();
});

test("the timer checkpoints while the event loop is idle", async () => {
  const db = openMemoryStore(join(tempDir("ha-wal-"), "memory.db"), { checkpoints: { everyMs: 5 } });
  const pragma = db.pragma.bind(db);
  const results: unknown[] = [];
  db.pragma = ((source: string, options?: Database.PragmaOptions) => {
    const out = pragma(source, options);
    if (source.startsWith("wal_checkpoint")) results.push(out);
    return out;
  }) as typeof db.pragma;
  writePages(db, 20);
  await waitFor(() => results.length > 0, "a checkpoint by the timer");
  const [first] = results[0] as Array<{ log: number; checkpointed: number }>;
  assert.ok(first.log >= 20 && first.checkpointed === first.log, JSON.stringify(first));
  db.close();
});

test("checkpoints can be left to SQLite, and the schedule stopped", () => {
  const path = join(tempDir("ha-wal-"), "memory.db");
  const plain = openMemoryStore(path, { checkpoints: false });
  assert.equal(plain.pragma("wal_autocheckpoint", { simple: true }), 1000);
  const stop = scheduleWalCheckpoints(plain, { everyMs: 1_000 });
  assert.equal(plain.pragma("wal_autocheckpoint", { simple: true }), WAL_CHECKPOINT_DEFAULTS.backstopPages);
  stop();
  assert.equal(plain.pragma("wal_autocheckpoint", { simple: true }), 1000);
  assert.throws(() => scheduleWalCheckpoints(plain, { everyMs: 0 }), /everyMs/);
  plain.close();
  assert.equal(checkpointWal(plain), null, "closed");
  assert.equal(checkpointWal(new Database(":memory:")), null, "no log");
});
