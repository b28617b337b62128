/**
 * The data dir holds API keys and conversations: whatever state it was left in, after a start it and
 * everything in it are private to the user, and a correction is said once in the log.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { startDaemon } from "./bootstrap.js";
import { makePrivate } from "./paths.js";

const mode = (path: string) => statSync(path).mode & 0o777;

test("a pre-existing world-readable data dir and its files are made private, with one log line", async () => {
  const dataDir = join(tempDir("ha-perms-"), "data");
  mkdirSync(join(dataDir, "knowledge", "notes"), { recursive: true, mode: 0o755 });
  chmodSync(dataDir, 0o755);
  const db = new Database(join(dataDir, "config.db"));
  db.exec("CREATE TABLE IF NOT EXISTS t (x)");
  db.close();
  chmodSync(join(dataDir, "config.db"), 0o644);
  writeFileSync(join(dataDir, "knowledge", "notes", "content.md"), "hello", { mode: 0o644 });

  const logs: string[] = [];
  const d = await startDaemon({ dataDir, env: {}, plugins: [], ollamaUrl: "", logWrite: (l) => logs.push(l) });
  try {
    d.config.set("core.agent.max_tool_turns", "7");
    assert.equal(mode(dataDir), 0o700);
    assert.equal(mode(join(dataDir, "knowledge", "notes")), 0o700);
    assert.equal(mode(join(dataDir, "knowledge", "notes", "content.md")), 0o600);
    for (const f of ["config.db", "config.db-wal", "memory.db"]) assert.equal(mode(join(dataDir, f)), 0o600, f);
    const said = logs.filter((l) => l.includes("private"));
    assert.equal(said.length, 1, logs.join(""));
    assert.match(said[0], /readable by others/);
  } finally {
    await d.stop();
  }
});

test("a new data dir is created private, and files the daemon creates later are 0600", async () => {
  const dataDir = join(tempDir("ha-perms-"), "fresh");
  const logs: string[] = [];
  const d = await startDaemon({ dataDir, env: {}, plugins: [], ollamaUrl: "", logWrite: (l) => logs.push(l) });
  try {
    assert.equal(mode(dataDir), 0o700);
    for (const f of ["config.db", "memory.db", join("adapters", "openai.lua")]) {
      assert.equal(mode(join(dataDir, f)), 0o600, f);
    }
    assert.ok(!logs.some((l) => l.includes("readable by others")), "nothing to correct on a fresh dir");
  } finally {
    await d.stop();
  }
});

test("making the data dir private keeps a plugin's plugin.bin executable by its owner", () => {
  const dataDir = tempDir("ha-perms-bin-");
  const bin = join(dataDir, "plugins", "weather", "plugin.bin");
  mkdirSync(dirname(bin), { recursive: true });
  writeFileSync(bin, "#!/bin/sh\n");
  chmodSync(bin, 0o755);
  const data = join(dataDir, "plugins", "weather", "plugin.json");
  writeFileSync(data, "{}");
  chmodSync(data, 0o644);
  makePrivate(dataDir);
  assert.equal(mode(bin), 0o700, "group and others lose access, the owner keeps execute");
  assert.equal(mode(data), 0o600);
});
