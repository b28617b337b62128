/** GraphDB on a real memory.db: commit rules, uniqueness per session, recall and its BFS, the index items. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { WordEmbedder } from "../../../test/fixtures/embedding/word-embedder.js";
import { openGraph } from "../../../test/fixtures/memory-graph.js";
import { entityItemId, GraphDB, GraphError } from "./graph.js";

test("commit skips empty parts and names outside 2–50 characters or without a letter, CJK, - or _", async () => {
  const { graph, close } = openGraph();
  const fifty = "a".repeat(50);
  const r = graph.commit([
    { subject: "  Alice  ", relation: "likes", object: "green   tea" },
    { subject: "", relation: "likes", object: "tea" },
    { subject: "Bob", relation: " ", object: "tea" },
    { subject: "我", relation: "喜欢", object: "猫咪" },
    { subject: "a".repeat(51), relation: "is", object: "long" },
    { subject: fifty, relation: "is", object: "long" },
    { subject: "1234", relation: "is", object: "number" },
    { subject: "3-4", relation: "is", object: "range" },
    { subject: "用户", relation: "住在", object: "北京" },
    { subject: "Ａｌｉｃｅ", relation: "lives in", object: "Paris" },
    { subject: "Alice", relation: "is", object: "alice" },
  ]);
  assert.equal(r.skipped.length, 6, r.skipped.join("\n"));
  assert.match(r.skipped.join("\n"), /#2: subject, relation and object must all be non-empty/);
  assert.match(r.skipped.join("\n"), /#4: "我" must be 2–50 characters \(it has 1\)/);
  assert.match(r.skipped.join("\n"), /#5: .* must be 2–50 characters \(it has 51\)/);
  assert.match(r.skipped.join("\n"), /#7: "1234" must contain a letter/);
  assert.match(r.skipped.join("\n"), /#11: subject and object are the same/);
  assert.equal(r.relations, 5);
  assert.equal(graph.entity("Alice")?.name, "Alice", "trimmed; the full-width form is the same entity");
  assert.equal(graph.entity("green tea")?.name, "green tea", "inner whitespace collapsed");
  assert.ok(graph.entity(fifty), "50 characters is allowed");
  assert.ok(graph.entity("3-4"), '"-" counts');
  assert.equal(graph.entity("北京")?.type, "Concept");
  assert.equal(graph.entity("ALICE")?.mentionCount, 2, "names compare case-insensitively");
  await close();
});

test("mention_count counts every commit that names an entity; created counts only new ones", async () => {
  const { graph, close } = openGraph();
  assert.equal(graph.commit([{ subject: "Alice", relation: "likes", object: "tea" }]).entities, 2);
  const r = graph.commit([
    { subject: "Alice", relation: "likes", object: "coffee" },
    { subject: "Bob", relation: "likes", object: "tea" },
  ]);
  assert.equal(r.entities, 2, "coffee and Bob are new");
  assert.equal(graph.entity("Alice")?.mentionCount, 2);
  assert.equal(graph.entity("tea")?.mentionCount, 2);
  assert.equal(graph.entity("coffee")?.mentionCount, 1);
  await close();
});

test("one relation per (source, target, type, session): the same session refreshes it, another adds one", async () => {
  let now = 1_000;
  const { graph, db, close } = openGraph({ now: () => now });
  const fact = { subject: "Alice", relation: "likes", object: "tea" };
  assert.equal(graph.commit([fact], { sessionId: "s1" }).relations, 1);
  now = 2_000;
  const again = graph.commit([{ ...fact, confidence: 0.4 }], { sessionId: "s1" });
  assert.deepEqual([again.relations, again.refreshed], [0, 1]);
  const rows = () =>
    db.prepare("SELECT session_id, confidence, created_at, updated_at FROM relations ORDER BY id").all() as Array<
      Record<string, unknown>
    >;
  assert.deepEqual(rows(), [{ session_id: "s1", confidence: 0.4, created_at: 1_000, updated_at: 2_000 }]);
  assert.equal(graph.commit([fact], { sessionId: "s2" }).relations, 1);
  assert.equal(graph.commit([fact]).relations, 1, "no session is a session of its own");
  assert.equal(graph.commit([fact]).refreshed, 1, "…and unique too (not NULL, which SQLite never treats as equal)");
  assert.equal(rows().length, 3);
  await close();
});

test("a sentence is stored once and cited by the facts committed with it", async () => {
  const { graph, db, close } = openGraph();
  const sentence = "Alice told me she drinks green tea every morning";
  graph.commit([{ subject: "Alice", relation: "drinks", object: "green tea" }], { sentence });
  graph.commit([{ subject: "Alice", relation: "drinks tea", object: "mornings" }], { sentence });
  assert.equal(db.prepare("SELECT COUNT(*) FROM sentences").pluck().get(), 1);
  const r = graph.recall(["Alice"], [], 1);
  assert.deepEqual(
    r.relations.map((x) => x.sentence),
    [sentence, sentence],
  );
  assert.throws(
    () => graph.commit([{ subject: "Alice", relation: "is", object: "Bob" }], { sentence: "x".repeat(4001) }),
    (e: unknown) => e instanceof GraphError && e.code === "graph_limit",
  );
  await close();
});

test("too many triples at once is refused with a clear error", async () => {
  const { graph, close } = openGraph();
  const many = Array.from({ length: 501 }, (_, i) => ({ subject: `e${i}x`, relation: "r", object: "target" }));
  assert.throws(() => graph.commit(many), /at most 500 triples per commit, got 501: commit them in batches/);
  await close();
});

/** A → B → C → D → E */
function chain(graph: ReturnType<typeof openGraph>["graph"]) {
  graph.commit([
    { subject: "node-A", relation: "next", object: "node-B" },
    { subject: "node-B", relation: "next", object: "node-C" },
    { subject: "node-C", relation: "next", object: "node-D" },
    { subject: "node-D", relation: "next", object: "node-E" },
  ]);
}

test("recall walks `depth` hops: 0, 1, 2 and 3 on a chain", async () => {
  const { graph, close } = openGraph();
  chain(graph);
  const names = (depth: number) =>
    graph
      .recall([], ["node-A"], depth)
      .entities.map((e) => e.name)
      .sort();
  assert.deepEqual(names(0), ["node-A"]);
  assert.deepEqual(names(1), ["node-A", "node-B"]);
  assert.deepEqual(names(2), ["node-A", "node-B", "node-C"]);
  assert.deepEqual(names(3), ["node-A", "node-B", "node-C", "node-D"]);
  assert.equal(graph.recall([], ["node-A"], 3).relations.length, 3);
  assert.deepEqual(
    graph
      .recall([], ["node-C"], 1)
      .entities.map((e) => e.name)
      .sort(),
    ["node-B", "node-C", "node-D"],
    "both directions",
  );
  assert.throws(() => graph.recall([], ["node-A"], 6), /depth must be an integer from 0 to 5/);
  await close();
});

test("recall matches keywords anywhere in a name, case-insensitively, with % and _ taken literally", async () => {
  const { graph, close } = openGraph();
  graph.commit([
    { subject: "Alice Smith", relation: "works at", object: "Acme_Corp" },
    { subject: "北京大学", relation: "位于", object: "海淀区" },
    { subject: "AcmeXCorp", relation: "is", object: "company" },
  ]);
  assert.deepEqual(
    graph.recall(["alice"], [], 0).entities.map((e) => e.name),
    ["Alice Smith"],
  );
  assert.deepEqual(
    graph.recall(["北京"], [], 0).entities.map((e) => e.name),
    ["北京大学"],
  );
  assert.deepEqual(
    graph.recall(["acme_"], [], 0).entities.map((e) => e.name),
    ["Acme_Corp"],
    "_ is not a wildcard",
  );
  assert.deepEqual(graph.recall(["%"], [], 0).entities, []);
  assert.deepEqual(
    graph.recall([], ["alice smith"], 0).entities.map((e) => e.name),
    ["Alice Smith"],
    "seeds are exact names",
  );
  assert.deepEqual(graph.recall([], ["Alice"], 0).entities, [], "a seed is not a substring match");
  await close();
});

test("recall with nothing to look for: the most mentioned entities and the 30 newest facts", async () => {
  let now = 0;
  const { graph, close } = openGraph({ now: () => ++now });
  for (let i = 0; i < 40; i++) graph.commit([{ subject: "hub-entity", relation: "links", object: `leaf-${i}` }]);
  const r = graph.recall([], []);
  assert.equal(r.entities[0].name, "hub-entity");
  assert.equal(r.entities[0].mentionCount, 40);
  assert.equal(r.relations.length, 30);
  assert.equal(r.relations[0].object, "leaf-39", "newest first");
  assert.equal(r.relations[29].object, "leaf-10");
  await close();
});

test("recall is bounded: a hub with many facts is cut at the caps and says so", async () => {
  const { graph, close } = openGraph();
  graph.commit(
    Array.from({ length: 300 }, (_, i) => ({ subject: "hub-entity", relation: "links", object: `leaf-${i}` })),
  );
  const r = graph.recall([], ["hub-entity"], 2, { maxEntities: 1000, maxRelations: 50 });
  assert.equal(r.relations.length, 50);
  assert.equal(r.truncated, true);
  const e = graph.recall([], ["hub-entity"], 2, { maxEntities: 20 });
  assert.equal(e.entities.length, 20);
  assert.equal(e.relations.length, 19, "no fact points outside the returned entities");
  assert.equal(e.truncated, true);
  assert.equal(graph.recall([], ["leaf-1"], 1).truncated, false);
  await close();
});

test("each visible entity is a search item ent:<id> of kind entity, found by keyword and by vector", async () => {
  const { graph, index, close } = openGraph({ embedder: new WordEmbedder() });
  graph.commit([{ subject: "Alice", relation: "adopted", object: "golden retriever", objectType: "Animal" }]);
  const dog = graph.entity("golden retriever")!;
  const item = index.get(entityItemId(dog.id));
  assert.equal(item?.kind, "entity");
  assert.equal(item?.text, "golden retriever (Animal)");
  assert.deepEqual(item?.meta, { name: "golden retriever", type: "Animal" });
  await index.flush();
  const hits = await index.search("retriever", { k: 5, filter: { kind: "entity" } });
  assert.deepEqual(
    hits.map((h) => h.id),
    [entityItemId(dog.id)],
  );
  assert.ok(hits[0].vector !== null && hits[0].vector > 0);
  graph.commit([{ subject: "Alice", relation: "is", object: "friend of Bob", subjectType: "Person" }]);
  assert.equal(index.get(entityItemId(graph.entity("Alice")!.id))?.text, "Alice (Person)", "a retype updates the item");
  await close();
});

test("the graph survives reopening the file; foreign keys are enforced", async () => {
  const first = openGraph();
  first.graph.commit([{ subject: "Alice", relation: "likes", object: "tea" }]);
  await first.close();
  const again = openGraph({ path: first.path });
  assert.equal(again.graph.entity("Alice")?.mentionCount, 1);
  assert.equal(again.graph.recall(["tea"], [], 1).relations.length, 1);
  assert.throws(
    () => again.db.prepare("DELETE FROM entities WHERE name = 'Alice'").run(),
    /FOREIGN KEY constraint failed/,
  );
  await again.close();
});

test("introspect counts and lists the hot entities; entities pages by mentions", async () => {
  const { graph, close } = openGraph();
  graph.commit([
    { subject: "Alice", relation: "likes", object: "tea" },
    { subject: "Alice", relation: "likes", object: "cats" },
    { subject: "Bob", relation: "likes", object: "tea" },
  ]);
  const i = graph.introspect();
  assert.deepEqual(
    { entities: i.entities, relations: i.relations, sentences: i.sentences },
    { entities: 4, relations: 3, sentences: 0 },
  );
  assert.deepEqual(
    i.hot
      .slice(0, 2)
      .map((h) => `${h.name}:${h.type}:${h.mentions}`)
      .sort(),
    ["Alice:Concept:2", "tea:Concept:2"],
  );
  assert.deepEqual(
    graph.entities({ offset: 2, limit: 5 }).map((e) => e.name),
    ["Bob", "cats"],
  );
  assert.throws(() => graph.entities({ limit: 501 }), /limit an integer from 1 to 500/);
  await close();
});

test("date_bucket is the day in the configured time zone; an unknown zone is refused", async () => {
  const { db, index, close } = openGraph();
  const shanghai = new GraphDB(db, index, { timeZone: "Asia/Shanghai" });
  shanghai.commit([{ subject: "Alice", relation: "landed in", object: "Beijing" }], {
    ts: Date.UTC(2024, 4, 1, 23, 30),
  });
  assert.equal(shanghai.recall(["Alice"], [], 1).relations[0].dateBucket, "2024-05-02");
  assert.throws(() => new GraphDB(db, index, { timeZone: "Mars/Olympus" }), /unknown time zone "Mars\/Olympus"/);
  await close();
});
