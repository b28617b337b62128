import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { openLayers } from "../../test/fixtures/memory-layers.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { migrateLegacyContext } from "./legacy.js";
import { discardUpgradeBackups, hasTable } from "./store.js";

const T0 = Date.UTC(2024, 0, 15, 8, 0);
const MIN = 60_000;

/** memory.db exactly as the RecentContext schema (format 2) left it. */
function legacyStore(rows: Array<[number, string, string, string, string, number, string?]>): string {
  const path = join(tempDir("ha-legacy-"), "memory.db");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.exec(`CREATE TABLE context_events (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     ts INTEGER NOT NULL,
     role TEXT NOT NULL,
     source TEXT NOT NULL,
     channel TEXT NOT NULL,
     text TEXT NOT NULL,
     tools TEXT NOT NULL DEFAULT '[]',
     in_window INTEGER NOT NULL DEFAULT 1
   );
   CREATE INDEX context_events_window ON context_events(in_window, id);
   ALTER TABLE context_events ADD COLUMN unanswered TEXT;`);
  db.pragma("user_version = 2");
  const insert = db.prepare(
    "INSERT INTO context_events (ts, role, source, channel, text, tools, in_window, unanswered) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  for (const [ts, role, source, channel, text, inWindow, unanswered] of rows) {
    insert.run(ts, role, source, channel, text, role === "agent" ? '["clock"]' : "[]", inWindow, unanswered ?? null);
  }
  db.close();
  return path;
}

test("legacy rows move into the window and the documents with their timestamps, after a backup", async () => {
  const path = legacyStore([
    [T0, "user", "cli", "cli", "I was born in Lyon", 0],
    [T0 + 1, "agent", "agent", "cli", "Noted, Lyon.", 0],
    [T0 + MIN, "user", "terminal", "terminal", "npm test output", 0],
    [T0 + 2 * MIN, "user", "cli", "cli", "My cat is called Pixel", 0],
    [T0 + 3 * MIN, "user", "cli", "cli", "What time is it?", 1],
    [T0 + 3 * MIN + 1, "agent", "agent", "cli", "It is 9:03.", 1],
    [T0 + 4 * MIN, "agent", "self", "self", "Reminder: call mum", 1],
    [T0 + 5 * MIN, "user", "webui", "webui", "hello?", 1, "the reply failed with an error"],
  ]);

  const first = openLayers({ path });
  const report = migrateLegacyContext(first.db, first.index, first.context, first.docs);
  assert.ok(report);
  assert.deepEqual(
    { window: report.window, archived: report.archived, documents: report.documents, dropped: report.dropped },
    { window: 3, archived: 2, documents: 1, dropped: 1 },
  );
  assert.deepEqual(report.backups, [`${path}.bak-2`]);
  assert.ok(!hasTable(first.db, "context_events"));

  const window = await first.context.window();
  assert.deepEqual(
    window.map((e) => [e.ts, e.kind, e.input, e.response]),
    [
      [T0 + 3 * MIN, "user", "What time is it?", "It is 9:03."],
      [T0 + 4 * MIN, "agent", "", "Reminder: call mum"],
      [T0 + 5 * MIN, "user", "hello?", ""],
    ],
  );
  assert.deepEqual(window[0].toolsUsed, ["clock"]);
  assert.equal(window[2].unanswered, "the reply failed with an error");
  assert.equal(first.index.count({ kind: "context" }), 3);

  const [doc] = first.docs.list();
  assert.deepEqual(
    first.docs.turns(doc.id).map((t) => [t.ts, t.input, t.response]),
    [
      [T0, "I was born in Lyon", "Noted, Lyon."],
      [T0 + 2 * MIN, "My cat is called Pixel", ""],
    ],
  );
  assert.doesNotMatch(doc.content, /npm test output/);
  assert.equal((await first.docs.query("where was I born", 1))[0].doc.id, doc.id);

  const backup = new Database(`${path}.bak-2`, { readonly: true });
  assert.equal(backup.prepare("SELECT COUNT(*) FROM context_events").pluck().get(), 8, "the backup holds the old rows");
  backup.close();
  assert.deepEqual(discardUpgradeBackups(first.db), [], "the backup outlives the start that migrated");
  first.db.close();

  const second = openLayers({ path });
  assert.equal(migrateLegacyContext(second.db, second.index, second.context, second.docs), null, "runs once");
  assert.equal(second.context.size(), 3);
  assert.deepEqual(discardUpgradeBackups(second.db), [`${path}.bak-2`]);
  assert.ok(!existsSync(`${path}.bak-2`));
});

test("a start that stopped before migrating keeps the backup and migrates on the next start", async () => {
  const path = legacyStore([[T0, "user", "cli", "cli", "I like green tea", 0]]);
  const crashed = openLayers({ path });
  crashed.db.close();

  const next = openLayers({ path });
  assert.deepEqual(discardUpgradeBackups(next.db), [], "legacy rows still waiting: keep the backup");
  const report = migrateLegacyContext(next.db, next.index, next.context, next.docs);
  assert.equal(report?.archived, 1);
  assert.deepEqual(discardUpgradeBackups(next.db), [], "kept through the start that migrated");
  next.db.close();

  const after = openLayers({ path });
  assert.equal(discardUpgradeBackups(after.db).length, 1);
});
