/** SearchIndex end to end: keyword and vector search, fusion, fingerprints, failures and updates. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { WordEmbedder } from "../../test/fixtures/embedding/word-embedder.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { LexicalEmbedder } from "../embedding/lexical.js";
import { fuse } from "./fusion.js";
import { SearchIndex } from "./search.js";

function tempDb(): string {
  return join(tempDir("search-test-"), "index.db");
}

const DOCS = [
  { id: "garden", text: "Melanie painted a sunrise over the lake last summer", meta: { n: 1 } },
  { id: "group", text: "Caroline went to the LGBTQ support group on Tuesday" },
  { id: "pottery", text: "The kids made pottery bowls in a weekend class" },
];

test("add, search, upsert and remove", async () => {
  const index = new SearchIndex(":memory:", { embedder: new WordEmbedder() });
  await index.add(DOCS);
  const [hit] = await index.search("when did Melanie paint the sunrise?", { k: 1 });
  assert.equal(hit.id, "garden");
  assert.deepEqual(hit.meta, { n: 1 });
  assert.ok(hit.bm25 > 0 && hit.vector !== null && hit.vector > 0, "both component scores are returned");
  assert.ok(hit.score > 0 && hit.score <= 1);

  await index.add([{ id: "garden", text: "Melanie planted tomatoes" }]);
  assert.deepEqual(await index.search("sunrise"), [], "replaced text is no longer found");
  assert.equal((await index.search("tomatoes"))[0].id, "garden");

  assert.equal(index.remove(["garden", "missing"]), 1);
  assert.deepEqual(await index.search("tomatoes"), []);
  assert.equal(index.status().items, 2);
  await index.close();
});

test("a Chinese query finds a Chinese document through BM25 (FTS5 alone cannot segment Chinese)", async () => {
  const doc = "我今天下午去北京大学看樱花，人非常多";
  // The trap: FTS5's own tokenizer keeps the whole CJK run as one token, so a word inside it never matches.
  const raw = new Database(":memory:");
  raw.exec("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='unicode61')");
  raw.prepare("INSERT INTO t VALUES (?)").run(doc);
  assert.equal(raw.prepare<[], { n: number }>("SELECT count(*) AS n FROM t WHERE t MATCH '樱花'").get()?.n, 0);
  raw.close();

  const index = new SearchIndex(":memory:");
  await index.add([
    { id: "zh", text: doc },
    { id: "zh2", text: "明天上海下雨，记得带伞" },
    { id: "en", text: "cherry blossoms in Kyoto" },
  ]);
  const hits = await index.search("樱花");
  assert.deepEqual(
    hits.map((h) => h.id),
    ["zh"],
  );
  assert.ok(hits[0].bm25 > 0);
  assert.equal(hits[0].vector, null, "no embedder: keyword search only");
  assert.equal((await index.search("北京的大学"))[0].id, "zh");
  assert.equal(index.status().vectors, "none");
});

test("filter by kind and per-query weights", async () => {
  const index = new SearchIndex(":memory:", { embedder: new WordEmbedder() });
  await index.add([
    { id: "a", kind: "diary", text: "walked the dog in the park" },
    { id: "b", kind: "notes", text: "the dog needs a vet appointment" },
  ]);
  const notes = await index.search("dog", { filter: { kind: "notes" } });
  assert.deepEqual(
    notes.map((h) => [h.id, h.kind]),
    [["b", "notes"]],
  );
  const vectorOnly = await index.search("dog park", { weights: { bm25: 0, vector: 1 } });
  assert.equal(vectorOnly[0].id, "a");
  assert.ok(
    vectorOnly.every((h) => h.bm25 === 0),
    "BM25 is not computed with weight 0",
  );
  await assert.rejects(index.search("dog", { weights: { bm25: 0, vector: 0 } }), /cannot both be 0/);
});

test("fusion normalises each component by the query's maximum", () => {
  const fused = fuse(
    [
      { rowid: 1, bm25: 10, vector: 0.2 },
      { rowid: 2, bm25: 5, vector: 0.4 },
      { rowid: 3, bm25: 0, vector: null },
      { rowid: 4, bm25: 5, vector: null },
      { rowid: 5, bm25: 5, vector: null, pending: true },
    ],
    { bm25: 0.5, vector: 0.5 },
  );
  assert.deepEqual(
    fused.map((f) => f.score),
    [0.5 + 0.25, 0.25 + 0.5, 0, 0.25, 0.25 + 0.25],
    "no vector counts 0; a pending one counts as high as the item's BM25 share",
  );
});

test("a keyword match whose vector is still pending is not outranked by vector-only near-misses", async () => {
  const index = new SearchIndex(":memory:", { embedder: new LexicalEmbedder() });
  await index.add(Array.from({ length: 30 }, (_, i) => ({ id: `n${i}`, text: "把这句话翻译成英文：今天是第26天。" })));
  // Vectors are computed after the write commits: this one is not written yet when the search runs.
  index.write((w) => w.upsert([{ id: "sister", text: "我妹妹在柏林读研究生。" }]));
  const search = () => index.search("妹妹在哪里读研究生", { k: 5, weights: { bm25: 0.4, vector: 0.6 } });
  const before = await search();
  assert.equal(before[0]?.id, "sister", `ranked: ${before.map((h) => h.id).join(", ")}`);
  assert.equal(before[0].vector, null, "its vector was pending");
  await index.flush();
  const after = await search();
  assert.equal(after[0].id, "sister");
  assert.ok(after[0].vector! > 0);
  assert.ok(Math.abs(after[0].score - before[0].score) < 1e-9, "scored the same before and after its vector");
  await index.close();
});

test("vectors of another fingerprint are never compared or returned", async () => {
  const path = tempDb();
  const index = new SearchIndex(path, { embedder: new WordEmbedder("a", 32), autoReembed: false });
  await index.add(DOCS);
  assert.ok((await index.search("pottery bowls"))[0].vector! > 0);

  // Same dimension, different model: the old vectors must not be used for the new model's queries.
  index.setEmbedder(new WordEmbedder("b", 32));
  const hits = await index.search("pottery bowls");
  assert.equal(hits[0].id, "pottery", "still found by keyword");
  assert.ok(
    hits.every((h) => h.vector === null),
    "no vector from fingerprint words:a",
  );
  assert.equal(index.status().vectors, "partial");
  const spaces = index.db.prepare("SELECT fingerprint, dimension FROM search_spaces ORDER BY id").all();
  assert.deepEqual(spaces, [
    { fingerprint: "words:a", dimension: 32 },
    { fingerprint: "words:b", dimension: 32 },
  ]);
  await index.close();
});

test("an embedding failure keeps items searchable by keyword and is filled in later", async () => {
  const embedder = new WordEmbedder();
  const errors: string[] = [];
  const index = new SearchIndex(":memory:", { embedder, onError: (e) => errors.push(e.message) });
  await index.add([DOCS[1]]);
  embedder.fail = new Error("model server down");
  embedder.failOn = /pottery|sunrise/;
  await index.add(DOCS);
  assert.deepEqual(errors, ["model server down"]);
  const [hit] = await index.search("bowls");
  assert.equal(hit.id, "pottery");
  assert.equal(hit.vector, null);
  assert.ok((await index.search("support group"))[0].vector! > 0, "the unchanged item keeps its vector");
  assert.equal(index.status().vectors, "partial");

  // A replaced text whose new vector cannot be computed keeps no vector of its old text.
  await index.add([{ id: "group", text: "Caroline joined a pottery class" }]);
  const replaced = (await index.search("Caroline class")).find((h) => h.id === "group");
  assert.equal(replaced?.vector, null);

  embedder.fail = null;
  const job = index.reembed();
  assert.ok(job);
  assert.equal((await job.finished).state, "done");
  assert.equal(index.status().vectors, "complete");
  assert.ok((await index.search("pottery"))[0].vector! > 0);
});

test("a rewritten item is not found by its old words and its shared words count once", async () => {
  // Enough other items that the rewrite's stale keyword postings are not compacted away at once.
  const others = Array.from({ length: 60 }, (_, i) => ({
    id: `other${i}`,
    text: i % 6 === 0 ? `meeting notes ${i} about the budget` : `shopping list ${i} with apples`,
  }));
  // Another item keeps "Tuesday" in the index, so the word is still looked up after the rewrite.
  others.push({ id: "lunch", text: "lunch with Sam on Tuesday" });
  const index = new SearchIndex(":memory:");
  await index.add([...others, { id: "plan", text: "meeting on Tuesday in the blue room" }]);
  assert.equal((await index.search("blue room"))[0]?.id, "plan");

  await index.add([{ id: "plan", text: "meeting cancelled" }]);
  assert.deepEqual(
    (await index.search("Tuesday")).map((h) => h.id),
    ["lunch"],
    "the old words no longer find it",
  );

  const fresh = new SearchIndex(":memory:");
  await fresh.add([...others, { id: "plan", text: "meeting cancelled" }]);
  const scores = async (i: SearchIndex) => (await i.search("meeting", { k: 20 })).map((h) => [h.id, h.bm25]);
  assert.deepEqual(await scores(index), await scores(fresh), "scores equal those of a freshly built index");
  await index.close();
  await fresh.close();
});
