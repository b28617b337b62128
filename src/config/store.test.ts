/** The store's in-memory copy of single values: it must never answer differently from the file. */
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
