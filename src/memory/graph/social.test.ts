/** SocialStore on a real graph: traits overwrite, relations go both ways, networks follow people only. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openGraph } from "../../../test/fixtures/memory-graph.js";
import { SocialStore } from "./social.js";

test("setTrait creates a Person and overwrites a trait, returning the value it replaced", async () => {
  const { graph, close } = openGraph();
  const social = new SocialStore(graph);
  graph.commit([{ subject: "Alice", relation: "likes", object: "tea" }]);
  assert.deepEqual(social.setTrait("Alice", "age", "28"), { previous: null });
  assert.deepEqual(social.setTrait("alice", "AGE", " 29 "), { previous: "28" });
  const alice = social.person("Alice");
  assert.deepEqual(alice, {
    name: "Alice",
    type: "Person",
    mentions: 3,
    traits: { age: "29" },
    relations: [{ relation: "likes", other: "tea", direction: "out" }],
  });
  assert.throws(() => social.setTrait("A", "age", "3"), /person name "A" must be 2–50 characters/);
  assert.throws(() => social.setTrait("Alice", "", "3"), /trait must be 1–50 characters/);
  assert.throws(() => social.setTrait("Alice", "bio", "x".repeat(501)), /value must be 1–500 characters/);
  assert.equal(social.person("Nobody"), null);
  await close();
});

test("relate records the relation both ways between two Persons", async () => {
  const { graph, close } = openGraph();
  const social = new SocialStore(graph);
  graph.commit([{ subject: "Bob", relation: "likes", object: "jazz" }]);
  const r = social.relate("Alice", "friend", "Bob");
  assert.equal(r.relations, 2);
  assert.equal(graph.entity("Bob")?.type, "Person", "a Concept is retyped");
  assert.deepEqual(
    social
      .person("Alice")
      ?.relations.map((x) => `${x.direction} ${x.relation} ${x.other}`)
      .sort(),
    ["in friend Bob", "out friend Bob"],
  );
  assert.equal(social.relate("Bob", "friend", "Alice").refreshed, 2, "relating again refreshes");
  assert.throws(() => social.relate("Alice", "friend", "B"), /cannot relate: "B" must be 2–50 characters/);
  assert.throws(() => social.relate("Alice", "friend", "alice"), /cannot relate: subject and object are the same/);
  await close();
});

test("network: people within depth hops over person-to-person relations, each link once", async () => {
  const { graph, close } = openGraph();
  const social = new SocialStore(graph);
  social.relate("Alice", "friend", "Bob");
  social.relate("Bob", "sibling", "Carol");
  social.relate("Carol", "colleague", "Dave");
  graph.commit([{ subject: "Alice", relation: "likes", object: "tea" }]);
  const one = social.network("Alice", 1)!;
  assert.deepEqual(one.people, [
    { name: "Alice", distance: 0 },
    { name: "Bob", distance: 1 },
  ]);
  assert.deepEqual(one.relations, [{ from: "Alice", relation: "friend", to: "Bob" }]);
  const two = social.network("Alice")!;
  assert.deepEqual(
    two.people.map((p) => `${p.name}:${p.distance}`),
    ["Alice:0", "Bob:1", "Carol:2"],
    "tea is not a person; Dave is three hops away",
  );
  assert.equal(two.relations.length, 2);
  assert.equal(social.network("Alice", 3)?.people.length, 4);
  assert.equal(social.network("Nobody"), null);
  assert.throws(() => social.network("Alice", 0), /depth must be an integer from 1 to 5/);
  await close();
});

test("forgetting a person removes their traits too", async () => {
  const { graph, db, close } = openGraph();
  const social = new SocialStore(graph);
  social.setTrait("Alice", "age", "28");
  social.relate("Alice", "friend", "Bob");
  graph.deleteEntity("Alice");
  assert.equal(db.prepare("SELECT COUNT(*) FROM person_traits").pluck().get(), 0);
  assert.equal(social.person("Alice"), null);
  assert.equal(social.person("Bob"), null, "Bob had only Alice: nothing refers to him any more");
  await close();
});
