/** The SearchIndex API the memory layers use: ts and filters, paging, prepared queries, write(), scoring, neighbours. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { WordEmbedder } from "../../test/fixtures/embedding/word-embedder.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { SearchIndex } from "./search.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 4, 1);

const ITEMS = [
  {
    id: "ctx:1",
    kind: "context",
    text: "we booked a flight to Lisbon for the holiday",
    ts: T0,
    meta: { channel: "cli" },
  },
  { id: "turn:1", kind: "turn", text: "my sister lives in Lisbon near the river", ts: T0 + DAY, meta: { docId: "d1" } },
  {
    id: "turn:2",
    kind: "turn",
    text: "the Lisbon trip was cancelled because of rain",
    ts: T0 + 2 * DAY,
    meta: { docId: "d2", pinned: true },
  },
  { id: "ent:1", kind: "entity", text: "Lisbon city", ts: T0 + 3 * DAY, meta: { n: 3 } },
];

test("items carry ts and meta; search filters by kinds, time range and meta", async () => {
  const index = new SearchIndex(":memory:", { embedder: new WordEmbedder() });
  await index.add(ITEMS);
  const ids = async (filter: Parameters<SearchIndex["search"]>[1]) =>
    (await index.search("Lisbon", { k: 10, ...filter })).map((h) => h.id).sort();
  assert.deepEqual(await ids({ filter: { kind: ["turn", "entity"] } }), ["ent:1", "turn:1", "turn:2"]);
  assert.deepEqual(await ids({ filter: { since: T0 + DAY, until: T0 + 2 * DAY } }), ["turn:1", "turn:2"]);
  assert.deepEqual(await ids({ filter: { meta: { docId: "d2" } } }), ["turn:2"]);
  assert.deepEqual(await ids({ filter: { meta: { pinned: true } } }), ["turn:2"]);
  assert.deepEqual(await ids({ filter: { kind: "context", meta: { channel: "web" } } }), []);
  // Vector-only search goes through the vector side's filtering.
  assert.deepEqual(await ids({ filter: { kind: "turn", since: T0 + 2 * DAY }, weights: { bm25: 0, vector: 1 } }), [
    "turn:2",
  ]);
  const [hit] = await index.search("sister river", { k: 1 });
  assert.deepEqual([hit.id, hit.ts], ["turn:1", T0 + DAY]);
  assert.throws(() => index.count({ meta: { "a.b": 1 } }), /meta filter key/);
  await index.close();
});

test("get, list (paged by ts, both orders) and count", async () => {
  const index = new SearchIndex(":memory:");
  const before = Date.now();
  await index.add([...ITEMS, { id: "plain", text: "no time given" }]);
  assert.ok(index.get("plain")!.ts >= before, "ts defaults to now");
  assert.equal(index.get("turn:2")!.meta.pinned, true);
  assert.equal(index.get("missing"), null);
  assert.deepEqual(
    index.list({ order: "desc", limit: 2 }).map((i) => i.id),
    ["plain", "ent:1"],
  );
  assert.deepEqual(
    index.list({ kind: "turn", offset: 1, limit: 5 }).map((i) => i.id),
    ["turn:2"],
  );
  assert.equal(index.count(), 5);
  assert.equal(index.count({ kind: ["turn", "context"], until: T0 + DAY }), 2);
  assert.throws(() => index.list({ limit: 10_001 }), /limit must be an integer from 1 to 10000/);
  // Written again without a ts, an item keeps its own.
  await index.add([{ id: "turn:1", kind: "turn", text: "my sister lives in Lisbon near the river" }]);
  assert.equal(index.get("turn:1")!.ts, T0 + DAY);
  await index.close();
});

test("a search_items table written before ts existed is migrated in place", async () => {
  const path = join(tempDir("memory-api-"), "old.db");
  const old = new Database(path);
  old.exec(`CREATE TABLE search_items (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
    text TEXT NOT NULL, meta TEXT NOT NULL DEFAULT '{}', terms TEXT NOT NULL DEFAULT '')`);
  old
    .prepare(
      "INSERT INTO search_items(id, kind, text, meta, terms) VALUES ('k', 'knowledge', 'soup recipe', '{}', 'soup recip')",
    )
    .run();
  old.close();
  const before = Date.now();
  const index = new SearchIndex(path);
  assert.equal((await index.search("soup"))[0].id, "k");
  assert.ok(index.get("k")!.ts >= before);
  assert.equal(index.count({ since: before }), 1);
  await index.close();
  const again = new SearchIndex(path);
  assert.equal(again.count(), 1, "opening a migrated table again changes nothing");
  await again.close();
});

test("a prepared query is embedded once and re-embedded when the embedder changes", async () => {
  const first = new WordEmbedder("a");
  const index = new SearchIndex(":memory:", { embedder: first });
  await index.add(ITEMS);
  const calls = first.calls;
  const q = await index.prepare("sister in Lisbon");
  assert.equal(first.calls, calls + 1);
  const [hit] = await index.search(q, { k: 1 });
  assert.equal(hit.id, "turn:1");
  assert.ok(hit.vector! > 0);
  await index.scoreIds(q, ["turn:1", "turn:2"]);
  await index.search(q, { filter: { kind: "turn" } });
  assert.equal(first.calls, calls + 1, "no further embedding for the same query");

  const second = new WordEmbedder("b");
  index.setEmbedder(second);
  await index.reembed()!.finished;
  const after = await index.search(q, { k: 1 });
  assert.equal(second.calls, Math.ceil(ITEMS.length / 64) + 1, "items re-embedded, then the query once");
  assert.ok(after[0].vector! > 0, "the query's vector lies in the new space");
  await index.close();
});

test("write(): index writes and the caller's SQL commit together, roll back together, vectors follow", async () => {
  const embedder = new WordEmbedder();
  const index = new SearchIndex(":memory:", { embedder });
  index.db.exec("CREATE TABLE docs (id TEXT PRIMARY KEY)");
  const insertDoc = index.db.prepare("INSERT INTO docs(id) VALUES (?)");
  await index.add([ITEMS[0]]);

  assert.throws(
    () =>
      index.write((w) => {
        w.upsert([{ id: "turn:9", kind: "turn", text: "zebra crossing story" }]);
        w.remove(["ctx:1"]);
        insertDoc.run("d9");
        throw new Error("archive failed");
      }),
    /archive failed/,
  );
  assert.equal(index.db.prepare("SELECT count(*) FROM docs").pluck().get(), 0);
  assert.deepEqual(await index.search("zebra"), [], "the rolled-back item is not in the keyword index");
  assert.equal((await index.search("flight Lisbon"))[0]?.id, "ctx:1", "the rolled-back removal is undone");

  const removed = index.write((w) => {
    w.upsert([{ id: "turn:9", kind: "turn", text: "zebra crossing story", ts: T0 }]);
    insertDoc.run("d9");
    return w.remove(["ctx:1"]);
  });
  assert.equal(removed, 1);
  const [kw] = await index.search("zebra", { weights: { bm25: 1, vector: 0 } });
  assert.equal(kw.id, "turn:9", "searchable by keyword as soon as write returns");
  await index.flush();
  const [vec] = await index.search("zebra", { weights: { bm25: 0, vector: 1 } });
  assert.ok(vec.vector! > 0, "its vector is written after the commit");
  assert.equal(index.status().vectors, "complete");

  const nested = index.db.transaction(() => index.write(() => 1));
  assert.throws(() => nested(), /must not run inside another transaction/);
  let kept: Parameters<Parameters<SearchIndex["write"]>[0]>[0] | undefined;
  index.write((w) => {
    kept = w;
  });
  assert.throws(() => kept!.upsert([{ id: "x", text: "late" }]), /only usable inside its callback/);
  await index.close();
});

test("vectors scheduled by write() and lost to a crash are computed on the next start", async () => {
  const path = join(tempDir("memory-api-"), "crash.db");
  const stuck = new WordEmbedder();
  stuck.gate = new Promise(() => {});
  const crashed = new SearchIndex(path, { embedder: stuck });
  crashed.write((w) => w.upsert(ITEMS));
  await waitFor(() => stuck.calls > 0, "the embedding to start");
  // The process dies here: the database is simply opened again by a new process.
  const embedder = new WordEmbedder();
  const index = new SearchIndex(path, { embedder });
  assert.equal(index.status().vectors, "partial");
  await index.reembed()?.finished;
  assert.equal(index.status().vectors, "complete");
  assert.equal(embedder.embedded, ITEMS.length);
  await index.close();
});

test("scoreIds: cosine with vectors, normalised BM25 without; unknown ids absent", async () => {
  const withVectors = new SearchIndex(":memory:", { embedder: new WordEmbedder() });
  await withVectors.add(ITEMS);
  const scores = await withVectors.scoreIds("sister near the river", ["turn:1", "turn:2", "nope"]);
  assert.deepEqual([...scores.keys()].sort(), ["turn:1", "turn:2"]);
  assert.ok(scores.get("turn:1")! > scores.get("turn:2")!);
  assert.ok(scores.get("turn:1")! <= 1);

  const keywordOnly = new SearchIndex(":memory:");
  await keywordOnly.add(ITEMS);
  const bm25 = await keywordOnly.scoreIds("sister near the river", ["turn:1", "turn:2", "ent:1"]);
  assert.equal(bm25.get("turn:1"), 1);
  assert.equal(bm25.get("ent:1"), 0);
  await withVectors.close();
  await keywordOnly.close();
});

test("similarity and nearest find near-duplicates among the candidates, not all pairs", async () => {
  const index = new SearchIndex(":memory:", { embedder: new WordEmbedder() });
  const notes = Array.from({ length: 30 }, (_, i) => ({ id: `n${i}`, kind: "doc", text: `note ${i} about topic${i}` }));
  await index.add([
    ...notes,
    { id: "a", kind: "entity", text: "Alice likes green tea in the morning" },
    { id: "b", kind: "entity", text: "Alice likes green tea every morning" },
    { id: "c", kind: "entity", text: "the car needs new tyres" },
  ]);
  assert.ok(index.similarity("a", "b")! > 0.75);
  assert.ok(index.similarity("a", "c")! < 0.3);
  assert.equal(index.similarity("a", "missing"), null);
  const near = index.nearest("a", 2, { kind: "entity" });
  assert.deepEqual(
    near.map((n) => n.id),
    ["b", "c"],
  );
  assert.ok(near[0].similarity > 0.75);
  assert.ok(!index.nearest("a", 50).some((n) => n.id === "a"), "never the item itself");

  const keywordOnly = new SearchIndex(":memory:");
  await keywordOnly.add([
    { id: "a", text: "Alice likes green tea in the morning" },
    { id: "b", text: "Alice likes green tea every morning" },
    { id: "c", text: "the car needs new tyres" },
  ]);
  const [best] = keywordOnly.nearest("a", 1);
  assert.equal(best.id, "b");
  assert.ok(best.similarity > 0 && best.similarity <= 1);
  assert.equal(keywordOnly.similarity("a", "b"), null, "no vectors: no cosine");
  await index.close();
  await keywordOnly.close();
});
