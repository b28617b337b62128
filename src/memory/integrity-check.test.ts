/**
 * memory.check() on real memory.db files: a healthy store passes every part, and each kind of damage is found
 * by its part — an item whose keyword terms no longer match its text (raw SQL on the row), a vector whose item
 * is gone (a stray row), an index that no longer matches its table (SQLite's own check) — while the check
 * never writes (the file's bytes stay the same).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { LexicalEmbedder } from "../embedding/lexical.js";
import { SearchIndex } from "../retrieval/search.js";
import { checkTerms } from "../retrieval/terms-check.js";
import { vectorTables } from "../retrieval/vector-index.js";
import { MemoryChecker } from "./integrity-check.js";
import { type DB, openMemoryStore } from "./store.js";

async function filledStore(): Promise<{ db: DB; path: string }> {
  const path = join(tempDir("ha-memcheck-"), "memory.db");
  const db = openMemoryStore(path, { checkpoints: false });
  const index = new SearchIndex(db, { embedder: new LexicalEmbedder() });
  await index.add([
    { id: "doc:a", kind: "doc", text: "Alice keeps bees on the roof of her flat in Lyon." },
    { id: "doc:b", kind: "doc", text: "The dentist appointment moved to Thursday at nine." },
    { id: "turn:1", kind: "turn", text: "我们周末去杭州看西湖。" },
  ]);
  return { db, path };
}

const part = (check: Awaited<ReturnType<MemoryChecker["check"]>>, name: string) => {
  const found = check.parts.find((p) => p.name === name);
  assert.ok(found, `a ${name} part`);
  return found;
};

test("a healthy memory.db passes every part, and the check writes nothing", async () => {
  const { db, path } = await filledStore();
  db.pragma("wal_checkpoint(TRUNCATE)");
  const before = readFileSync(path);
  const check = await new MemoryChecker(db).check();
  assert.equal(check.ok, true, JSON.stringify(check));
  assert.deepEqual(
    check.parts.map((p) => [p.name, p.status]),
    [
      ["database", "ok"],
      ["keyword_index", "ok"],
      ["vector_index", "ok"],
    ],
  );
  assert.match(part(check, "keyword_index").detail, /^3 items/);
  assert.ok(check.durationMs >= 0 && check.at > 0);
  assert.deepEqual(readFileSync(path), before, "memory.db unchanged");
  db.close();
});

test("an item whose stored terms were changed by raw SQL fails the keyword index, naming it", async () => {
  const { db } = await filledStore();
  db.prepare("UPDATE search_items SET terms = 'zebra quartz' WHERE id = 'doc:b'").run();
  const check = await new MemoryChecker(db).check();
  assert.equal(check.ok, false);
  const keyword = part(check, "keyword_index");
  assert.equal(keyword.status, "fail");
  assert.equal(keyword.problems.length, 1);
  assert.match(
    keyword.problems[0],
    /^item doc:b: its keyword terms do not match its text \(\d+ missing, 2 not in the text\)$/,
  );
  assert.doesNotMatch(keyword.problems[0], /dentist/, "the item's text is not repeated");
  assert.equal(part(check, "database").status, "ok");
  db.close();
});

test("a stray vector row, whose item does not exist, fails the vector index", async () => {
  const { db } = await filledStore();
  const [table] = vectorTables(db);
  db.prepare(`INSERT INTO ${table} (rowid, q) SELECT 424242, q FROM ${table} LIMIT 1`).run();
  const check = await new MemoryChecker(db).check();
  const vectors = part(check, "vector_index");
  assert.equal(vectors.status, "fail");
  assert.match(vectors.problems.join("\n"), new RegExp(`${table}: 1 vector\\(s\\) without an item \\(rowid 424242\\)`));
  assert.equal(check.ok, false);
  db.close();
});

test("an index that no longer matches its table fails SQLite's integrity check", async () => {
  const { db, path } = await filledStore();
  db.close();
  // The index's definition rewritten under it: its entries (by kind) no longer match what it declares (ts).
  const raw = new Database(path);
  raw.unsafeMode(true);
  raw.pragma("writable_schema = ON");
  raw
    .prepare(
      "UPDATE sqlite_master SET sql = 'CREATE INDEX search_items_kind ON search_items(ts)' WHERE name = 'search_items_kind'",
    )
    .run();
  raw.close();
  const reopened = new Database(path);
  const check = await new MemoryChecker(reopened).check();
  const database = part(check, "database");
  assert.equal(database.status, "fail");
  assert.match(database.problems.join("\n"), /search_items_kind/);
  assert.match(database.detail, /restore memory\.db from a backup/);
  reopened.close();
});

test("the keyword check stops at its deadline and says how far it got", async () => {
  const { db } = await filledStore();
  const out = await checkTerms(db, { deadline: performance.now() - 1, maxProblems: 20 });
  assert.deepEqual(out, { rows: 3, checked: 0, mismatched: 0, problems: [], complete: false });
  db.close();
});

test("a time limit out of range is refused, saying the range", async () => {
  const { db } = await filledStore();
  assert.throws(() => new MemoryChecker(db).check({ timeoutMs: 10 }), /timeoutMs must be from 1000 to 120000/);
  db.close();
});

test("a second call while one runs gets the same check", async () => {
  const { db } = await filledStore();
  const checker = new MemoryChecker(db);
  const [a, b] = [checker.check(), checker.check()];
  assert.equal(a, b);
  assert.equal((await a).ok, true);
  db.close();
});
