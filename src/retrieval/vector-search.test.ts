/** Vector search at scale: exact KNN over the in-memory 8-bit matrices, kept in step with SQLite. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { distractors, SynonymEmbedder } from "../../test/fixtures/embedding/synonym-embedder.js";
import { WordEmbedder } from "../../test/fixtures/embedding/word-embedder.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { SearchIndex } from "./search.js";
import { VectorMatrix } from "./vector-matrix.js";

const VECTOR_ONLY = { bm25: 0, vector: 1 };

test("a query sharing no word with its match finds it among 3,000 items at 1024 dimensions", async () => {
  // Up to this change, exact KNN switched off above 2M stored floats (≈ 2,000 items at 1024 dimensions)
  // and a query with no shared word found nothing at 2,501 items.
  const index = new SearchIndex(":memory:", { embedder: new SynonymEmbedder() });
  const items = [...distractors(3000)].map((text, i) => ({ id: `d${i}`, kind: "turn", text }));
  items.splice(1500, 0, { id: "car", kind: "turn", text: "I parked the car behind the office yesterday" });
  await index.add(items);
  for (const query of ["automobile", "汽车"]) {
    const hits = await index.search(query, { k: 10 });
    assert.equal(hits[0]?.id, "car", query);
    assert.equal(hits[0].bm25, 0, "found by its vector alone");
  }
  assert.equal(index.status().vectorSearch, "exact");
  await index.close();
});

test("kind filters are exact; deletes and replacements leave the matrix", async () => {
  const index = new SearchIndex(":memory:", { embedder: new WordEmbedder("a", 32) });
  const many = Array.from({ length: 200 }, (_, i) => ({ id: `n${i}`, kind: "turn", text: `river stone ${i}` }));
  await index.add([...many, { id: "e", kind: "entity", text: "river" }]);
  const entity = await index.search("river", { k: 3, filter: { kind: "entity" }, weights: VECTOR_ONLY });
  assert.deepEqual(
    entity.map((h) => h.id),
    ["e"],
  );
  assert.equal(index.remove(["e", "n0"]), 2);
  assert.deepEqual(await index.search("river", { filter: { kind: "entity" }, weights: VECTOR_ONLY }), []);
  await index.add([{ id: "n1", kind: "entity", text: "a brand new text" }]);
  const turns = await index.search("river stone", { k: 500, filter: { kind: "turn" }, weights: VECTOR_ONLY });
  assert.equal(turns.length, 198, "n0 removed, n1 moved to another kind");
  assert.ok(!turns.some((h) => h.id === "n0" || h.id === "n1"));
  await index.close();
});

test("a rolled-back removal keeps the vector searchable", async () => {
  const index = new SearchIndex(":memory:", { embedder: new WordEmbedder() });
  await index.add([{ id: "a", text: "blue whale" }]);
  assert.throws(() =>
    index.write((w) => {
      w.remove(["a"]);
      throw new Error("abort");
    }),
  );
  const [hit] = await index.search("whale", { weights: VECTOR_ONLY });
  assert.equal(hit?.id, "a");
  await index.close();
});

test("after a restart the matrices are rebuilt from SQLite; a model switch searches only the new space", async () => {
  const path = join(tempDir("vector-search-"), "index.db");
  const first = new SearchIndex(path, { embedder: new WordEmbedder("a") });
  await first.add([
    { id: "a", kind: "doc", text: "green tea with honey" },
    { id: "b", kind: "doc", text: "black coffee" },
  ]);
  first.remove(["b"]);
  await first.close();

  const again = new SearchIndex(path, { embedder: new WordEmbedder("a") });
  assert.deepEqual(
    (await again.search("green tea", { weights: VECTOR_ONLY })).map((h) => h.id),
    ["a"],
  );
  again.setEmbedder(new WordEmbedder("b"));
  assert.deepEqual(await again.search("green tea", { weights: VECTOR_ONLY }), [], "old space never searched");
  await again.reembed()?.finished;
  assert.deepEqual(
    (await again.search("green tea", { weights: VECTOR_ONLY })).map((h) => h.id),
    ["a"],
  );
  await again.close();
});

test("time-filtered vector search scans a small filtered set and over-fetches for a large one", async () => {
  const index = new SearchIndex(":memory:", { embedder: new WordEmbedder("a", 16) });
  const T = Date.UTC(2024, 0, 1);
  // 2,500 items: more than the filtered scan takes, so a wide range goes through the matrix.
  const items = Array.from({ length: 2500 }, (_, i) => ({ id: `n${i}`, text: `lake walk ${i}`, ts: T + i }));
  await index.add(items);
  const narrow = await index.search("lake walk", {
    k: 5,
    filter: { since: T + 100, until: T + 104 },
    weights: VECTOR_ONLY,
  });
  assert.deepEqual(narrow.map((h) => h.id).sort(), ["n100", "n101", "n102", "n103", "n104"]);
  const wide = await index.search("lake walk", { k: 20, filter: { since: T + 10 }, weights: VECTOR_ONLY });
  assert.equal(wide.length, 20);
  assert.ok(wide.every((h) => h.ts >= T + 10));
  await index.close();
});

test("the matrix keeps only live rows: removal moves the last row into the gap and shrinks storage", () => {
  const m = new VectorMatrix(4);
  const v = (x: number) => Float32Array.from([x, 1, 0, 0]);
  const codes = (x: number) => Int8Array.from([x, 127, 0, 0]);
  for (let i = 1; i <= 300; i++) m.put(i, i % 2 ? "odd" : "even", codes(i % 100));
  for (let i = 1; i <= 290; i++) m.remove(i);
  assert.equal(m.size(), 10);
  const hits = m.search(v(0), 20, ["odd", "even"]);
  assert.deepEqual(
    hits.map((h) => h.rowid).sort((a, b) => a - b),
    [291, 292, 293, 294, 295, 296, 297, 298, 299, 300],
  );
  assert.deepEqual(m.search(v(1), 5, ["missing"]), []);
  assert.throws(() => m.put(1, "odd", new Int8Array(3)), /3-dimensional vector/);
});

test("above 32,768 rows a kind is searched through sketches and still finds the true nearest rows", () => {
  const d = 64;
  const m = new VectorMatrix(d);
  let seed = 11;
  const rnd = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647 - 0.5;
  };
  const codes = (v: number[]) => Int8Array.from(v, (x) => Math.round(x * 180));
  const target = Array.from({ length: d }, rnd);
  for (let i = 0; i < 40_000; i++) m.put(i, "turn", codes(Array.from({ length: d }, rnd)));
  // Three rows near the target, at increasing distance.
  for (const [rowid, noise] of [
    [50_001, 0.05],
    [50_002, 0.15],
    [50_003, 0.3],
  ]) {
    m.put(rowid, "turn", codes(target.map((x) => x + noise * rnd())));
  }
  const hits = m.search(Float32Array.from(target), 3, ["turn"]);
  assert.deepEqual(
    hits.map((h) => h.rowid),
    [50_001, 50_002, 50_003],
  );
  assert.ok(hits[0].similarity > 0.95);
});

test("an item that takes another's place with the same text keeps its vector under its new kind", async () => {
  const embedder = new WordEmbedder("a", 32);
  const index = new SearchIndex(":memory:", { embedder });
  await index.add([{ id: "ctx:1", kind: "context", text: "the harbour walk was windy" }]);
  const embedded = embedder.embedded;
  const rowid = index.get("ctx:1")?.rowid;
  index.write((w) => {
    w.upsert([{ id: "turn:1", kind: "turn", text: "the harbour walk was windy", ts: 5, replaces: "ctx:1" }]);
    w.remove(["ctx:1"]);
  });
  await index.flush();
  assert.equal(embedder.embedded, embedded, "nothing embedded again");
  assert.equal(index.get("ctx:1"), null);
  assert.equal(index.get("turn:1")?.rowid, rowid, "the same row, renamed");
  const [hit] = await index.search("harbour walk", { k: 1, filter: { kind: ["turn"] }, weights: VECTOR_ONLY });
  assert.equal(hit?.id, "turn:1");
  assert.ok((hit.vector ?? 0) > 0, "found by its vector in the turn kind");
  assert.deepEqual(await index.search("harbour walk", { filter: { kind: ["context"] }, weights: VECTOR_ONLY }), []);

  // Renamed before its vector was written (the queue runs after this synchronous code): it gets one under
  // its new kind.
  index.write((w) => w.upsert([{ id: "ctx:2", kind: "context", text: "the cafe was closed" }]));
  index.write((w) => {
    w.upsert([{ id: "turn:2", kind: "turn", text: "the cafe was closed", replaces: "ctx:2" }]);
    w.remove(["ctx:2"]);
  });
  await index.flush();
  const [cafe] = await index.search("cafe closed", { k: 1, filter: { kind: ["turn"] }, weights: VECTOR_ONLY });
  assert.equal(cafe?.id, "turn:2");

  // A different text is not a rename: the new item is indexed and embedded as usual.
  const before = embedder.embedded;
  index.write((w) => w.upsert([{ id: "turn:3", kind: "turn", text: "something else", replaces: "turn:1" }]));
  await index.flush();
  assert.ok(embedder.embedded > before);
  assert.ok(index.get("turn:1"), "the other item stays: the caller removes it");
  await index.close();
});

test("a rename moves the item's vector in every loaded space, also one that is not the current space", async () => {
  const a = new WordEmbedder("a", 32);
  const index = new SearchIndex(":memory:", { embedder: a, autoReembed: false });
  await index.add([{ id: "ctx:1", kind: "context", text: "the harbour walk was windy" }]);
  const b = new WordEmbedder("b", 32);
  b.gate = new Promise(() => {}); // space b's vectors never come in this test
  index.setEmbedder(b);
  index.write((w) => {
    w.upsert([{ id: "turn:1", kind: "turn", text: "the harbour walk was windy", replaces: "ctx:1" }]);
    w.remove(["ctx:1"]);
  });
  index.setEmbedder(a);
  const inKind = async (kind: string) =>
    (await index.search("harbour walk", { filter: { kind: [kind] }, weights: VECTOR_ONLY })).map((h) => h.id);
  assert.deepEqual(await inKind("turn"), ["turn:1"]);
  assert.deepEqual(await inKind("context"), []);
});
