/** The in-memory BM25 index: scoring, updates, compaction, and its rebuild from SQLite. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { B, Bm25Index, bm25Terms, K1 } from "./bm25.js";
import { SearchIndex } from "./search.js";

test("scores follow BM25 (with the index's k1 and b) and rank best first", () => {
  const idx = new Bm25Index();
  idx.add(1, "", ["cat", "sat", "mat"]);
  idx.add(2, "", ["dog", "dog", "cat"]);
  idx.add(3, "", ["bird", "tree", "sky", "blue"]);
  const [first, second] = idx.top(["dog"], 10);
  assert.equal(first.doc, 2);
  assert.equal(second, undefined);
  const idf = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
  const avg = 10 / 3;
  const expected = (idf * 2 * (K1 + 1)) / (2 + K1 * (1 - B + (B * 3) / avg));
  assert.ok(Math.abs(first.score - expected) < 1e-9);
});

test("delete, re-add and compaction keep document frequencies right", () => {
  const idx = new Bm25Index();
  for (let d = 1; d <= 40; d++) idx.add(d, "", d % 2 ? ["odd", "n"] : ["even", "n"]);
  for (let d = 1; d <= 30; d++) idx.delete(d, d % 2 ? ["odd", "n"] : ["even", "n"]);
  assert.equal(idx.size, 10);
  assert.deepEqual(
    idx
      .top(["odd"], 100)
      .map((h) => h.doc)
      .sort((a, b) => a - b),
    [31, 33, 35, 37, 39],
  );
  idx.add(3, "", ["odd"]);
  assert.equal(idx.top(["odd"], 100).length, 6);
  assert.throws(() => idx.add(3, "", ["x"]), /already holds/);
});

test("kind filters before the limit, and ties go to the older document", () => {
  const idx = new Bm25Index();
  for (let d = 1; d <= 20; d++) idx.add(d, d <= 15 ? "chat" : "note", ["same"]);
  assert.deepEqual(
    idx.top(["same"], 3, { kinds: ["note"] }).map((h) => h.doc),
    [16, 17, 18],
  );
  assert.deepEqual(
    idx.top(["same"], 2).map((h) => h.doc),
    [1, 2],
  );
  assert.deepEqual(idx.top(["same"], 2, { kinds: ["missing"] }), []);
});

test("Latin words are stemmed so inflections match; CJK words are kept", () => {
  assert.deepEqual(bm25Terms(["painting", "paints", "北京", "2023"]), ["paint", "paint", "北京", "2023"]);
});

test("the keyword index is rebuilt from SQLite when the database is reopened", async () => {
  const path = join(tempDir("ha-bm25-"), "index.db");
  const a = new SearchIndex(path);
  await a.add([
    { id: "1", text: "Caroline went to a support group for painting" },
    { id: "2", text: "我今天去北京大学看樱花" },
  ]);
  a.remove(["1"]);
  await a.add([{ id: "3", text: "Melanie paints sunsets" }]);
  await a.close();
  const b = new SearchIndex(path);
  assert.deepEqual(
    (await b.search("painted")).map((h) => h.id),
    ["3"],
  );
  assert.deepEqual(
    (await b.search("樱花")).map((h) => h.id),
    ["2"],
  );
  await b.close();
});

test("queries touching more documents than the scratch space hold all of them and leave no stale scores", () => {
  const idx = new Bm25Index();
  for (let d = 1; d <= 3000; d++) idx.add(d, "", d <= 1500 ? ["a", "x"] : ["b", "x"]);
  const both = idx.top(["a", "b"], 5000);
  assert.equal(new Set(both.map((h) => h.doc)).size, 3000);
  assert.ok(both.every((h) => h.doc >= 1 && h.score > 0));
  const fresh = new Bm25Index();
  for (let d = 1; d <= 3000; d++) fresh.add(d, "", d <= 1500 ? ["a", "x"] : ["b", "x"]);
  assert.deepEqual(idx.top(["a"], 5000), fresh.top(["a"], 5000), "no score left over from the previous query");
});

/** An index of `docs` built from scratch: what an updated index must be indistinguishable from. */
function freshIndex(docs: ReadonlyMap<number, readonly string[]>): Bm25Index {
  const idx = new Bm25Index();
  for (const [doc, terms] of docs) idx.add(doc, "", terms);
  return idx;
}

test("an updated document loses its old terms and counts shared terms once, before any compaction", () => {
  // 99 other documents keep the update's stale postings far below the compaction threshold, so the old
  // postings are still in the lists when the document is queried.
  const docs = new Map<number, string[]>();
  for (let d = 2; d <= 100; d++) docs.set(d, d % 10 === 0 ? ["meeting", `w${d}`] : ["filler", `w${d}`]);
  // Another document keeps "tuesday" alive, so the word is still looked up after the update.
  docs.set(101, ["tuesday", "lunch"]);
  const idx = freshIndex(docs);
  idx.add(1, "", ["meeting", "tuesday", "room"]);
  assert.equal(idx.top(["room"], 10)[0]?.doc, 1);

  idx.delete(1, ["meeting", "tuesday", "room"]);
  idx.add(1, "", ["meeting", "cancelled"]);
  docs.set(1, ["meeting", "cancelled"]);

  const fresh = freshIndex(docs);
  assert.deepEqual(idx.top(["tuesday"], 10), fresh.top(["tuesday"], 10), "the old word no longer finds it");
  assert.deepEqual(
    idx.top(["tuesday"], 10).map((h) => h.doc),
    [101],
  );
  assert.deepEqual(idx.top(["meeting"], 20), fresh.top(["meeting"], 20), "the shared term is counted once");
});

test("many updates and deletes, across compactions, rank exactly as an index built from scratch", () => {
  let seed = 11;
  const rnd = (n: number) => {
    seed = (seed * 16807) % 2147483647;
    return seed % n;
  };
  const vocabulary = Array.from({ length: 30 }, (_, i) => `t${i}`);
  const docs = new Map<number, string[]>();
  const idx = new Bm25Index();
  for (let step = 0; step < 3000; step++) {
    const doc = 1 + rnd(200);
    const old = docs.get(doc);
    if (old) idx.delete(doc, old);
    if (rnd(5) === 0) {
      docs.delete(doc);
      continue;
    }
    const terms = Array.from({ length: 1 + rnd(6) }, () => vocabulary[rnd(vocabulary.length)]);
    idx.add(doc, "", terms);
    docs.set(doc, terms);
  }
  const fresh = freshIndex(docs);
  assert.equal(idx.size, fresh.size);
  for (const term of vocabulary) assert.deepEqual(idx.top([term], 300), fresh.top([term], 300), term);
});
