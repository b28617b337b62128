import assert from "node:assert/strict";
import { test } from "node:test";
import { openLayers, storedEvent } from "../../../test/fixtures/memory-layers.js";
import { DOC_LIMITS, DocStoreError } from "./documents.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2023, 4, 8, 13, 56);

const event = storedEvent;

test("archive keeps the verbatim turns with their original timestamps, a summary, tags and entities", async () => {
  const { docs, index } = openLayers();
  const doc = docs.archive([
    event(1, T0, "Caroline went to the LGBTQ support group yesterday", { response: "That sounds meaningful." }),
    event(2, T0 + 60_000, "我住在北京，我喜欢北京烤鸭", { source: "webui", channel: "webui" }),
  ]);
  assert.ok(doc);
  assert.equal(doc.source, "context_archived");
  assert.equal(doc.tsStart, T0);
  assert.equal(doc.tsEnd, T0 + 60_000);
  assert.match(doc.content, /Caroline went to the LGBTQ support group yesterday/);
  assert.match(doc.content, /That sounds meaningful\./);
  assert.match(doc.content, /我住在北京，我喜欢北京烤鸭/);
  assert.match(doc.content, /2023-05-08T13:56:00\.000Z/);
  assert.match(doc.summary, /^来自 2 个来源的 2 条对话 .* 涉及: /);
  assert.ok(doc.tags.length > 0 && doc.tags.length <= 10);
  assert.ok(doc.entities.includes("北京"), `entities: ${doc.entities.join(", ")}`);
  assert.ok(doc.entities.includes("Caroline"), `entities: ${doc.entities.join(", ")}`);
  assert.ok(doc.entities.length <= 20);

  const turns = docs.turns(doc.id);
  assert.deepEqual(
    turns.map((t) => [t.ts, t.source, t.input]),
    [
      [T0, "cli", "Caroline went to the LGBTQ support group yesterday"],
      [T0 + 60_000, "webui", "我住在北京，我喜欢北京烤鸭"],
    ],
  );
  const item = index.get(`turn:${turns[0].id}`);
  assert.ok(item, "each turn is a search item");
  assert.equal(item.kind, "turn");
  assert.equal(item.ts, T0);
  assert.deepEqual(item.meta, { docId: doc.id, source: "cli" });
});

test("the same content archived twice is stored once", () => {
  const { docs, index } = openLayers();
  const batch = [event(1, T0, "I adopted a cat named Miso"), event(2, T0 + 1, "She is two years old")];
  const a = docs.archive(batch);
  const b = docs.archive(batch.map((e) => ({ ...e, id: e.id + 10 })));
  assert.equal(b?.id, a?.id);
  assert.equal(docs.count(), 1);
  assert.equal(index.count({ kind: "turn" }), 2);
});

test("NoMemory events are never archived nor indexed", () => {
  const { docs, index } = openLayers();
  assert.equal(docs.archive([event(1, T0, "ls -la output", { noMemory: true })]), null);
  const doc = docs.archive([
    event(1, T0, "secret terminal output", { noMemory: true }),
    event(2, T0 + 1, "hello there"),
  ]);
  assert.ok(doc);
  assert.doesNotMatch(doc.content, /secret terminal output/);
  assert.equal(docs.turns(doc.id).length, 1);
  assert.equal(index.count({ kind: "turn" }), 1);
});

test("query reads and counts access; consume takes documents out of the store and the index", async () => {
  const { docs, index } = openLayers();
  const pets = docs.archive([
    event(1, T0, "My dog Rex loves the beach"),
    event(2, T0 + 1, "Rex is a golden retriever"),
  ]);
  const work = docs.archive([event(3, T0 + DAY, "I work as a nurse at the city hospital")]);
  assert.ok(pets && work);

  const hits = await docs.query("what breed is Rex", 3);
  assert.equal(hits[0].doc.id, pets.id);
  assert.equal(hits[0].doc.accessCount, 1);
  assert.ok(hits[0].turnIds.length > 0);
  assert.equal(docs.get(pets.id)?.accessCount, 1, "query only counts");
  assert.equal(docs.count(), 2);

  const taken = await docs.consume("Rex dog", 1);
  assert.deepEqual(
    taken.map((d) => d.id),
    [pets.id],
  );
  assert.deepEqual(
    taken[0].turns.map((t) => t.input),
    ["My dog Rex loves the beach", "Rex is a golden retriever"],
  );
  assert.equal(docs.get(pets.id), null);
  assert.equal(docs.turnById(taken[0].turns[0].id), null);
  assert.equal(index.count({ kind: "turn", meta: { docId: pets.id } }), 0, "its turns left the index");
  assert.equal(docs.count(), 1);
});

test("commit stores a manual document verbatim and indexes long ones in ≤ 1,000-character pieces", async () => {
  const { docs, index } = openLayers();
  const para = (n: number) => `Paragraph ${n}: ${"the quick brown fox jumps over the lazy dog. ".repeat(8)}`;
  const content = Array.from({ length: 6 }, (_, i) => para(i)).join("\n\n");
  const doc = await docs.commit({ content, tags: ["fox"], ts: T0 });
  assert.equal(doc.content, content);
  assert.equal(doc.source, "manual");
  assert.deepEqual(doc.tags, ["fox"]);
  const items = index.list({ kind: "doc", meta: { docId: doc.id } });
  assert.ok(items.length > 1);
  const pieces = items.sort((a, b) => Number(a.meta.chunk) - Number(b.meta.chunk)).map((i) => i.text);
  // The index stores each piece cleaned (trimmed), so compare without whitespace.
  assert.equal(pieces.join("").replace(/\s+/g, ""), content.replace(/\s+/g, ""));
  for (const item of items) {
    assert.ok(item.text.length <= 1000, `piece of ${item.text.length}`);
    assert.match(item.id, new RegExp(`^doc:${doc.id}#\\d+$`));
    assert.equal(item.ts, T0);
  }
  const short = await docs.commit({ content: "Mum's birthday is 12 March" });
  assert.ok(index.get(`doc:${short.id}`));
  assert.equal((await docs.query("birthday", 1))[0].doc.id, short.id);

  assert.equal(docs.remove([doc.id]), 1);
  assert.equal(index.count({ kind: "doc", meta: { docId: doc.id } }), 0);
});

test("commit refuses what is out of bounds with a clear error", async () => {
  const { docs } = openLayers();
  await assert.rejects(
    docs.commit({ content: "x".repeat(DOC_LIMITS.contentChars + 1) }),
    (err: unknown) => err instanceof DocStoreError && err.code === "doc_too_large" && /split/.test(err.message),
  );
  await assert.rejects(docs.commit({ content: "  " }), DocStoreError);
  await assert.rejects(
    docs.commit({ content: "ok", tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }),
    DocStoreError,
  );
  await assert.rejects(docs.query("x", 0), DocStoreError);
});

test("turnsAroundMany gives each turn's neighbours in time across documents, in one look-up", () => {
  const { docs } = openLayers();
  const a = docs.archive([event(1, T0, "one"), event(2, T0 + 2, "three")]);
  const b = docs.archive([event(3, T0 + 1, "two"), event(4, T0 + 3, "four"), event(5, T0 + 3, "five")]);
  assert.ok(a && b);
  const [one, three] = docs.turns(a.id);
  const four = docs.turns(b.id)[1];
  const runs = docs.turnsAroundMany([three.id, 999_999, one.id, four.id], 2, 1);
  const inputs = (id: number) => runs.get(id)?.map((t) => t.input);
  assert.deepEqual(inputs(three.id), ["one", "two", "three", "four"]);
  assert.deepEqual(inputs(one.id), ["one", "two"], "nothing before the first turn");
  // Same time: the id orders them.
  assert.deepEqual(inputs(four.id), ["two", "three", "four", "five"]);
  assert.equal(runs.has(999_999), false, "a turn that is gone has no run");
  assert.equal(docs.turnsAroundMany([], 1, 1).size, 0);
  assert.throws(
    () =>
      docs.turnsAroundMany(
        Array.from({ length: 257 }, (_, i) => i),
        1,
        1,
      ),
    /ids/,
  );
});

test("findCold returns documents neither stored nor read for 72 h with ≤ 2 accesses, until distilled", async () => {
  let now = T0;
  const { docs } = openLayers({ now: () => now });
  const cold = docs.archive([event(1, T0, "the old trip to Lisbon")]);
  const read = docs.archive([event(2, T0, "a recipe for bread")]);
  assert.ok(cold && read);
  now = T0 + 4 * DAY;
  await docs.query("bread recipe", 1);
  assert.deepEqual(
    docs.findCold(now).map((d) => d.id),
    [cold.id],
  );
  assert.deepEqual(docs.findCold(T0 + DAY), [], "not yet 72 h old");
  docs.markDistilled(cold.id, now);
  assert.deepEqual(docs.findCold(now), []);
  assert.ok(docs.get(cold.id), "a distilled document stays");
});

test("list pages newest first and count follows", async () => {
  const { docs } = openLayers();
  for (let i = 0; i < 5; i++) await docs.commit({ content: `note number ${i}`, ts: T0 + i });
  assert.equal(docs.count(), 5);
  assert.deepEqual(
    docs.list({ offset: 1, limit: 2 }).map((d) => d.content),
    ["note number 3", "note number 2"],
  );
  assert.equal(docs.count("context_archived"), 0);
});
