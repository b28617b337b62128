import assert from "node:assert/strict";
import { test } from "node:test";
import Database from "better-sqlite3";
import { cachedStatement } from "./statements.js";

test("a statement is prepared once per database and SQL text, and the cache keeps the 256 most recently used", () => {
  const db = new Database(":memory:");
  const other = new Database(":memory:");
  try {
    const first = cachedStatement(db, "SELECT 0");
    assert.equal(cachedStatement(db, "SELECT 0"), first);
    assert.notEqual(cachedStatement(other, "SELECT 0"), first, "one cache per database");
    for (let i = 1; i < 256; i++) cachedStatement(db, `SELECT ${i}`);
    assert.equal(cachedStatement(db, "SELECT 0"), first, "256 texts fit; using one makes it the most recent");
    cachedStatement(db, "SELECT 256");
    assert.equal(cachedStatement(db, "SELECT 0"), first, "the least recently used went, not this one");
    const stale = cachedStatement(db, "SELECT 1");
    assert.equal(cachedStatement(db, "SELECT 1"), stale);
    for (let i = 1000; i < 1256; i++) cachedStatement(db, `SELECT ${i}`);
    assert.notEqual(cachedStatement(db, "SELECT 1"), stale, "a text not used for 256 others is prepared again");
  } finally {
    db.close();
    other.close();
  }
});
