/**
 * Upgrading a RecentContext memory.db (format 2, one `context_events` table) through real `homed` starts:
 * the first start keeps a backup beside the store and moves the old rows into the window and the
 * documents; the next successful start deletes the backup.
 */
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Database from "better-sqlite3";
import { type FakeLLM, startFakeLLM } from "./fixtures/fake-llm.js";
import { CliLines, startHomedOn } from "./fixtures/homed-process.js";
import { tempDir } from "./fixtures/temp-dir.js";
import { waitFor } from "./fixtures/wait.js";

const T0 = Date.UTC(2024, 0, 15, 8, 0);
const MIN = 60_000;

/** memory.db exactly as the RecentContext schema (format 2) left it, in a fresh data dir. */
function legacyDataDir(rows: Array<[number, "user" | "agent", string, string, number]>): string {
  const dir = tempDir("ha-upgrade-");
  const db = new Database(join(dir, "memory.db"));
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
    "INSERT INTO context_events (ts, role, source, channel, text, in_window) VALUES (?, ?, ?, 'cli', ?, ?)",
  );
  for (const row of rows) insert.run(...row);
  db.close();
  return dir;
}

let fake: FakeLLM;
let env: Record<string, string>;
before(async () => {
  fake = await startFakeLLM();
  env = {
    HOMEAGENT_LLM_BASE_URL: fake.url,
    HOMEAGENT_LLM_MODEL: "fake-model",
    HOMEAGENT_LLM_API_KEY: "sk-test-0000",
    // `/memory` shows dates in the user's zone (the system's by default): the expected lines are UTC.
    TZ: "UTC",
  };
});
after(() => fake.close());

test("a format-2 memory.db is migrated by the first start, its backup deleted by the next", async () => {
  const dir = legacyDataDir([
    [T0, "user", "cli", "I was born in Lyon", 0],
    [T0 + 1, "agent", "agent", "Noted, Lyon.", 0],
    [T0 + MIN, "user", "cli", "My cat is called Pixel", 0],
    [T0 + 2 * MIN, "user", "cli", "What time is it?", 1],
    [T0 + 2 * MIN + 1, "agent", "agent", "It is 9:02.", 1],
  ]);
  const backup = join(dir, "memory.db.bak-2");

  const first = await startHomedOn(dir, env);
  let code: number | null;
  try {
    assert.match(
      first.stderr(),
      /migrated the old context \(1 in the window, 2 archived into 1 documents, 0 dropped\)/,
    );
    assert.ok(existsSync(backup), "the backup stays through the start that migrated");
    assert.equal(statSync(backup).mode & 0o777, 0o600, "the backup holds conversations: private");
    const old = new Database(backup, { readonly: true });
    assert.equal(old.prepare("SELECT COUNT(*) FROM context_events").pluck().get(), 5);
    old.close();

    const cli = await CliLines.open(first.socket);
    assert.equal(
      await cli.text("/memory timeline"),
      `#1 [2024-01-15 08:02:00] user cli: What time is it? → It is 9:02.`,
    );
    const docs = await cli.text("/memory docs born Lyon");
    assert.match(docs, /\[2024-01-15T08:00:00.000Z\] cli: I was born in Lyon → Noted, Lyon\./);
    assert.match(docs, /\[2024-01-15T08:01:00.000Z\] cli: My cat is called Pixel/);
    assert.equal(await cli.text("hello again"), "ok");
    cli.close();
  } finally {
    code = await first.stop();
  }
  assert.equal(code, 0, first.stderr());
  assert.ok(existsSync(backup), "a clean stop keeps it too");

  const second = await startHomedOn(dir, env);
  try {
    await waitFor(
      () => !existsSync(backup) && /removed upgrade backup .*memory\.db\.bak-2/.test(second.stderr()),
      "the backup to be deleted (and said so) after the next successful start",
    );
    assert.doesNotMatch(second.stderr(), /migrated the old context/, "it migrates once");
    const cli = await CliLines.open(second.socket);
    const timeline = (await cli.text("/memory timeline")).split("\n");
    assert.deepEqual(
      timeline.map((l) => l.replace(/^#\d+ \[[^\]]+\] /, "")),
      ["user cli: What time is it? → It is 9:02.", "user cli: hello again → ok"],
    );
    cli.close();
  } finally {
    code = await second.stop();
  }
  assert.equal(code, 0, second.stderr());
});
