/**
 * Taking facts out of the graph: merge, purge soft / hard, edit, deleteEntity — each checked in the
 * tables and in the search index (keyword and vector), because forgetting has to forget everywhere.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { WordEmbedder } from "../../../test/fixtures/embedding/word-embedder.js";
import { openGraph } from "../../../test/fixtures/memory-graph.js";
import { entityItemId, GraphError } from "./graph.js";

const count = (db: ReturnType<typeof openGraph>["db"], sql: string) => db.prepare(sql).pluck().get() as number;

test("merge redirects the source's facts to the target, adds up mentions, drops duplicates and deletes the source", async () => {
  const { graph, index, db, close } = openGraph();
  graph.commit([
    { subject: "Bobby", relation: "likes", object: "jazz" },
    { subject: "Bob", relation: "likes", object: "jazz" },
    { subject: "Alice", relation: "knows", object: "Bobby" },
    { subject: "Bobby", relation: "alias of", object: "Bob" },
  ]);
  graph.setTrait("Bobby", "age", "31");
  graph.setTrait("Bob", "job", "pilot");
  const bobby = graph.entity("Bobby")!;
  const r = graph.merge("bobby", "Bob");
  assert.deepEqual(r, { relations: 2, dropped: 2 }, "the jazz twin and the self-loop are dropped");
  assert.equal(graph.entity("Bobby"), null);
  assert.equal(index.get(entityItemId(bobby.id)), null, "the source's search item is gone");
  const bob = graph.entity("Bob")!;
  assert.equal(bob.mentionCount, 3 + 4, "commits and setTrait each count a mention");
  assert.equal(bob.type, "Person", "a typed source retypes a Concept target");
  const facts = graph
    .recall([], ["Bob"], 1)
    .relations.map((x) => `${x.subject} ${x.relation} ${x.object}`)
    .sort();
  assert.deepEqual(facts, ["Alice knows Bob", "Bob likes jazz"]);
  assert.deepEqual(
    graph.traits("Bob").map((t) => `${t.trait}=${t.value}`),
    ["age=31", "job=pilot"],
  );
  assert.equal(count(db, "SELECT COUNT(*) FROM relations WHERE source_id = target_id"), 0);
  assert.throws(() => graph.merge("Bob", "BOB"), /same entity: nothing to merge/);
  assert.throws(
    () => graph.merge("Nobody", "Bob"),
    (e: unknown) => e instanceof GraphError && e.code === "graph_not_found" && /source "Nobody"/.test(e.message),
  );
  await close();
});

test("soft purge marks facts deleted and hides entities left without any, from recall and the index", async () => {
  const { graph, index, db, close } = openGraph({ embedder: new WordEmbedder() });
  graph.commit([
    { subject: "Alice", relation: "likes", object: "oolong tea" },
    { subject: "Alice", relation: "lives in", object: "Paris" },
  ]);
  const tea = graph.entity("oolong tea")!;
  const r = graph.purge({ subjectContains: "alice", targetContains: "tea", mode: "soft" });
  assert.deepEqual(
    { relations: r.relations, entities: r.entities, removed: r.removed },
    { relations: 1, entities: 1, removed: [{ subject: "Alice", relation: "likes", object: "oolong tea" }] },
  );
  assert.equal(count(db, "SELECT COUNT(*) FROM relations WHERE status = 'deleted'"), 1, "the row stays, marked");
  assert.ok(graph.entity("oolong tea"), "the entity row stays (soft is reversible)");
  assert.equal(index.get(entityItemId(tea.id)), null);
  await index.flush();
  assert.deepEqual(await index.search("oolong", { filter: { kind: "entity" } }), []);
  assert.deepEqual(graph.recall(["oolong"], [], 1).entities, [], "hidden from recall");
  assert.deepEqual(
    graph.recall(["Alice"], [], 1).relations.map((x) => x.object),
    ["Paris"],
  );
  assert.equal(graph.purge({ subjectContains: "alice", targetContains: "tea", mode: "soft" }).relations, 0);

  graph.commit([{ subject: "Alice", relation: "likes", object: "oolong tea" }]);
  assert.ok(index.get(entityItemId(tea.id)), "committing the fact again brings it back");
  assert.equal(graph.recall(["oolong"], [], 1).relations.length, 1);
  await close();
});

test("hard purge deletes the rows, orphaned entities and sentences, and their search items", async () => {
  const { graph, index, db, close } = openGraph({ embedder: new WordEmbedder() });
  graph.commit([{ subject: "Alice", relation: "likes", object: "oolong tea" }], { sentence: "Alice likes oolong tea" });
  graph.commit([{ subject: "Alice", relation: "lives in", object: "Paris" }]);
  graph.commit([{ subject: "Carol", relation: "likes", object: "matcha" }]);
  graph.purge({ subjectContains: "Carol", mode: "soft" });
  const tea = graph.entity("oolong tea")!;
  const r = graph.purge({ relationType: "LIKES" });
  assert.deepEqual(
    { relations: r.relations, entities: r.entities, sentences: r.sentences },
    { relations: 2, entities: 3, sentences: 1 },
    "the soft-deleted Carol fact goes too; Alice stays (she lives in Paris)",
  );
  assert.equal(count(db, "SELECT COUNT(*) FROM relations"), 1);
  assert.equal(count(db, "SELECT COUNT(*) FROM sentences"), 0);
  assert.deepEqual(
    graph
      .entities({ limit: 10 })
      .map((e) => e.name)
      .sort(),
    ["Alice", "Paris"],
  );
  assert.equal(index.get(entityItemId(tea.id)), null);
  await index.flush();
  for (const q of ["oolong tea", "matcha", "Carol"]) {
    assert.deepEqual(await index.search(q, { filter: { kind: "entity" } }), [], `${q}: no keyword or vector trace`);
  }
  assert.equal(index.count({ kind: "entity" }), 2);
  assert.throws(() => graph.purge({}), /give at least one of subject_contains, relation_type, target_contains/);
  assert.throws(() => graph.purge({ subjectContains: "x", mode: "gone" as "hard" }), /mode must be "soft" or "hard"/);
  await close();
});

test("hard purge of trait:<name> removes that person trait", async () => {
  const { graph, close } = openGraph();
  graph.setTrait("Alice", "age", "31");
  graph.setTrait("Alice", "job", "pilot");
  const r = graph.purge({ subjectContains: "Alice", relationType: "trait:age" });
  assert.equal(r.traits, 1);
  assert.deepEqual(
    graph.traits("Alice").map((t) => t.trait),
    ["job"],
  );
  await close();
});

test("edit replaces every copy of a fact and removes what only the old fact held", async () => {
  const { graph, index, close } = openGraph();
  graph.commit([{ subject: "Alice", relation: "lives in", object: "Berlin" }], { sessionId: "a" });
  graph.commit([{ subject: "Alice", relation: "lives in", object: "Berlin" }], { sessionId: "b" });
  graph.commit([{ subject: "Alice", relation: "likes", object: "tea" }]);
  const berlin = graph.entity("Berlin")!;
  assert.deepEqual(graph.edit({ subject: "alice", relation: "lives in", object: "berlin" }, { object: "Munich" }), {
    removed: 2,
    added: 1,
  });
  assert.equal(graph.entity("Berlin"), null);
  assert.equal(index.get(entityItemId(berlin.id)), null);
  assert.equal(graph.entity("Alice")?.mentionCount, 4, "Alice kept her mentions (and got one more)");
  assert.deepEqual(
    graph
      .recall([], ["Alice"], 1)
      .relations.map((x) => `${x.relation} ${x.object}`)
      .sort(),
    ["likes tea", "lives in Munich"],
  );
  assert.throws(
    () => graph.edit({ subject: "Alice", relation: "lives in", object: "Berlin" }, { object: "Rome" }),
    (e: unknown) => e instanceof GraphError && e.code === "graph_not_found",
  );
  assert.throws(
    () => graph.edit({ subject: "Alice", relation: "likes", object: "tea" }, { object: "Tea" }),
    /the new values equal the old fact/,
  );
  assert.throws(
    () => graph.edit({ subject: "Alice", relation: "likes", object: "tea" }, { object: "x" }),
    /the edited fact is not valid: "x" must be 2–50 characters/,
  );
  assert.equal(graph.recall(["tea"], [], 1).relations.length, 1, "a refused edit changes nothing");
  await close();
});

test("deleteEntity removes the entity, its facts, traits, sentences naming it, orphaned neighbours and index items", async () => {
  const { graph, index, db, close } = openGraph({ embedder: new WordEmbedder() });
  graph.commit(
    [
      { subject: "Alice", relation: "likes", object: "oolong tea" },
      { subject: "Bob", relation: "knows", object: "Alice" },
    ],
    { sentence: "Bob said Alice likes oolong tea" },
  );
  graph.commit([{ subject: "Bob", relation: "likes", object: "jazz" }], { sentence: "Bob likes jazz" });
  graph.setTrait("Alice", "age", "31");
  const alice = graph.entity("Alice")!;
  const tea = graph.entity("oolong tea")!;
  assert.deepEqual(graph.deleteEntity("alice"), { entities: 2, relations: 2, sentences: 1, traits: 1 });
  assert.equal(graph.entity("Alice"), null);
  assert.equal(graph.entity("oolong tea"), null, "left with nothing");
  assert.ok(graph.entity("Bob"), "Bob still likes jazz");
  assert.equal(count(db, "SELECT COUNT(*) FROM sentences WHERE text LIKE '%Alice%'"), 0);
  assert.equal(count(db, "SELECT COUNT(*) FROM sentences"), 1);
  assert.equal(count(db, "SELECT COUNT(*) FROM person_traits"), 0);
  assert.equal(index.get(entityItemId(alice.id)), null);
  assert.equal(index.get(entityItemId(tea.id)), null);
  await index.flush();
  assert.deepEqual(await index.search("Alice", { filter: { kind: "entity" } }), []);
  assert.deepEqual(graph.recall(["Alice"], [], 2).entities, []);
  assert.throws(() => graph.deleteEntity("Alice"), /entity "Alice" is not in memory/);
  await close();
});

test("review helpers: facts citing sentences, and clearing them drops sentences nothing cites", async () => {
  const { graph, db, close } = openGraph();
  graph.commit([{ subject: "Alice", relation: "likes", object: "tea" }], { sentence: "Alice likes tea" });
  graph.commit([{ subject: "Bob", relation: "likes", object: "tea" }]);
  const cited = graph.withSentences(5);
  assert.deepEqual(
    cited.map((r) => r.sentence),
    ["Alice likes tea"],
  );
  assert.equal(graph.clearSentences(cited.map((r) => r.id)), 1);
  assert.equal(count(db, "SELECT COUNT(*) FROM sentences"), 0);
  assert.deepEqual(graph.withSentences(5), []);
  await close();
});
