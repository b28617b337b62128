/** The config store: its in-memory copy never answers differently from the file, and every value reads as text. */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { ConfigStore } from "./store.js";

function open(): { store: ConfigStore; file: string } {
  const file = path.join(tempDir("homeagent-config-store-"), "config.db");
  return { store: ConfigStore.open(file), file };
}

test("reads follow every write through the store", () => {
  const { store } = open();
  assert.equal(store.get("k"), undefined);
  store.put("k", "1");
  assert.equal(store.get("k"), "1");
  assert.equal(store.putIfAbsent("k", "2"), false);
  assert.equal(store.get("k"), "1");
  assert.equal(store.delete("k"), true);
  assert.equal(store.get("k"), undefined);
  assert.equal(store.putIfAbsent("k", "3"), true);
  assert.equal(store.get("k"), "3");
  store.close();
});

test("a rolled-back transaction leaves no value behind in memory", () => {
  const { store, file } = open();
  store.put("k", "before");
  assert.throws(() =>
    store.transaction(() => {
      store.put("k", "inside");
      store.put("other", "inside");
      assert.equal(store.get("k"), "inside");
      throw new Error("roll back");
    }),
  );
  assert.equal(store.get("k"), "before");
  assert.equal(store.get("other"), undefined);
  store.close();
  const raw = new Database(file);
  assert.deepEqual(raw.prepare("SELECT value FROM config WHERE key = 'k'").get(), { value: "before" });
  raw.close();
});

test("values a hand edit stored as BLOB or number are read as text, so validation can judge them", () => {
  const { store: first, file } = open();
  first.close();
  const raw = new Database(file);
  raw.prepare("INSERT INTO config (key, value) VALUES (?, ?)").run("core.agent.max_context_size", Buffer.from("10"));
  raw
    .prepare("INSERT INTO config (key, value) VALUES (?, ?)")
    .run("core.agent.max_tool_turns", Buffer.from([0xff, 0xfe]));
  raw.close();
  const store = ConfigStore.open(file);
  try {
    assert.equal(store.get("core.agent.max_context_size"), "10");
    assert.equal(typeof store.get("core.agent.max_tool_turns"), "string");
    assert.ok(store.rows("core.").every((r) => typeof r.key === "string" && typeof r.value === "string"));
  } finally {
    store.close();
  }
});

test("setMany stores every change or, when one fails, none: on disk and in memory", () => {
  const { store, file } = open();
  store.put("a", "old a");
  store.put("b", "old b");
  const bad = [
    ["a", "new a"],
    ["b", undefined],
    // Not text: SQLite cannot bind it, so the third write fails inside the transaction.
    ["c", { not: "text" } as unknown as string],
  ] as const;
  assert.throws(() => store.setMany(bad), RangeError);
  assert.equal(store.get("a"), "old a");
  assert.equal(store.get("b"), "old b");
  assert.equal(store.get("c"), undefined);
  const disk = new Database(file, { readonly: true });
  assert.deepEqual(disk.prepare("SELECT key, value FROM config ORDER BY key").all(), [
    { key: "a", value: "old a" },
    { key: "b", value: "old b" },
  ]);
  disk.close();

  assert.deepEqual(
    store.setMany([
      ["a", "new a"],
      ["b", undefined],
      ["c", "new c"],
      ["gone", undefined],
    ]),
    ["a", "b", "c"],
    "the keys whose row changed",
  );
  assert.deepEqual(
    ["a", "b", "c"].map((k) => store.get(k)),
    ["new a", undefined, "new c"],
  );
  store.close();
  const again = ConfigStore.open(file);
  assert.deepEqual(
    ["a", "b", "c"].map((k) => again.get(k)),
    ["new a", undefined, "new c"],
  );
  again.close();
});
