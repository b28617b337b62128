/**
 * Correcting and deleting one fact by its id (sdk.memory.editFact / deleteFact) on a real MemorySystem behind
 * a real Agent: every copy goes, the corrected fact is what the next prompt's memory index shows, a stale id
 * is refused as not found, and an edit whose write fails leaves the old fact exactly as it was.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startMemoryAgent } from "../../../test/fixtures/memory-system.js";
import { HomeAgentError } from "../../util/errors.js";
import { memoryApis } from "../memory-api.js";

function setup(t: { after(fn: () => Promise<void>): void }) {
  const h = startMemoryAgent();
  t.after(() => h.close());
  return { h, memory: memoryApis(h.memory).memory };
}

const code = (expected: string, message?: RegExp) => (err: unknown) =>
  err instanceof HomeAgentError && err.code === expected && (!message || message.test(err.message));

const memoryIndex = async (h: ReturnType<typeof setup>["h"], q: string) =>
  (await h.agent.previewContext(q)).sections.map((s) => s.text).join("\n");

test("editFact replaces every copy of the fact, shows the corrected one to the next prompt, and retires the old id", async (t) => {
  const { h, memory } = setup(t);
  await memory.commit([{ subject: "Marguerite", relation: "lives in", object: "Lyon" }]);
  // The same fact told in another session is a second row: the edit must take it too.
  h.memory.graph.commit([{ subject: "Marguerite", relation: "lives in", object: "Lyon" }], { sessionId: "cli" });
  const page = await memory.graph({ limit: 10 });
  assert.equal(page.edges.length, 2);
  const id = page.edges[0].id;
  assert.ok(Number.isSafeInteger(id) && id > 0, "a relation carries its id");
  assert.match(await memoryIndex(h, "Where does Marguerite live?"), /Lyon/);

  const r = await memory.editFact(id, { object: "Grenoble" });
  assert.equal(r.removed, 2);
  assert.deepEqual([r.fact.subject, r.fact.relation, r.fact.object], ["Marguerite", "lives in", "Grenoble"]);
  assert.notEqual(r.fact.id, id, "the corrected fact is a new fact with a new id");
  const after = await memory.graph({ limit: 10 });
  assert.deepEqual(
    after.edges.map((e) => `${e.subject} ${e.relation} ${e.object}`),
    ["Marguerite lives in Grenoble"],
  );
  assert.ok(!after.nodes.some((n) => n.name === "Lyon"), "an entity left with nothing goes");
  const index = await memoryIndex(h, "Where does Marguerite live?");
  assert.match(index, /Grenoble/);
  assert.doesNotMatch(index, /Lyon/, "the old fact is out of the next prompt");
  await assert.rejects(memory.editFact(id, { object: "Paris" }), code("graph_not_found", new RegExp(`#${id}`)));
  await assert.rejects(memory.deleteFact(id), code("graph_not_found"));
});

test("deleteFact removes every copy of one fact and leaves the others", async (t) => {
  const { h, memory } = setup(t);
  await memory.commit([
    { subject: "Marguerite", relation: "grows", object: "tomatoes" },
    { subject: "Marguerite", relation: "lives in", object: "Lyon" },
  ]);
  h.memory.graph.commit([{ subject: "Marguerite", relation: "grows", object: "tomatoes" }], { sessionId: "cli" });
  const grows = (await memory.graph()).edges.find((e) => e.relation === "grows");
  assert.ok(grows);
  assert.deepEqual(await memory.deleteFact(grows.id), { removed: 2 });
  const left = (await memory.graph()).edges.map((e) => `${e.subject} ${e.relation} ${e.object}`);
  assert.deepEqual(left, ["Marguerite lives in Lyon"]);
  assert.doesNotMatch(await memoryIndex(h, "What does Marguerite grow?"), /tomatoes/);
});

test("an edit whose write fails leaves the old fact as it was (one transaction)", async (t) => {
  const { h, memory } = setup(t);
  await memory.commit([{ subject: "Marguerite", relation: "lives in", object: "Lyon" }]);
  const [before] = (await memory.graph()).edges;
  // The delete of the old row succeeds; the insert of the corrected one then fails, as a full disk would.
  h.memory.graph.db.exec(
    "CREATE TEMP TRIGGER refuse_insert BEFORE INSERT ON relations BEGIN SELECT RAISE(ABORT, 'disk is full'); END",
  );
  await assert.rejects(memory.editFact(before.id, { object: "Grenoble" }), /disk is full/);
  h.memory.graph.db.exec("DROP TRIGGER refuse_insert");
  const [still] = (await memory.graph()).edges;
  assert.deepEqual(still, before, "the old fact, same id, untouched");
  assert.match(await memoryIndex(h, "Where does Marguerite live?"), /Lyon/);
});

test("editFact and deleteFact refuse bad ids and corrections with invalid_argument, writing nothing", async (t) => {
  const { memory } = setup(t);
  await memory.commit([{ subject: "Marguerite", relation: "lives in", object: "Lyon" }]);
  const [fact] = (await memory.graph()).edges;
  const edit = memory.editFact as (id: unknown, change: unknown) => Promise<unknown>;
  for (const id of ["1", 0, -1, 1.5, Number.NaN, null]) {
    await assert.rejects(edit(id, { object: "Paris" }), code("invalid_argument", /whole number/), String(id));
  }
  const cases: Array<[unknown, RegExp]> = [
    [null, /object \{subject\?/],
    [[], /object \{subject\?/],
    [{}, /at least one of subject, relation, object/],
    [{ object: "" }, /object must be a non-empty string/],
    [{ object: 42 }, /object must be a non-empty string/],
    [{ object: "x".repeat(513) }, /at most 512/],
    [{ object: "P" }, /not valid: "P" must be 2–50 characters/],
    [{ object: "marguerite" }, /subject and object are the same/],
    [{ object: "LYON" }, /same as the stored one/],
  ];
  for (const [change, message] of cases) {
    await assert.rejects(edit(fact.id, change), code("invalid_argument", message), JSON.stringify(change));
  }
  assert.deepEqual((await memory.graph()).edges, [fact], "nothing changed");
});

test("a control character in a fact is refused by edit and commit alike, never stored as a space", async (t) => {
  const { h, memory } = setup(t);
  await memory.commit([{ subject: "Marguerite", relation: "lives in", object: "Lyon" }]);
  const [fact] = (await memory.graph()).edges;
  for (const [field, value] of [
    ["object", "Ly\u0000on"],
    ["subject", "Mar\u001bguerite"],
    ["relation", "lives\u007fin"],
  ] as const) {
    const control = new RegExp(`${field} contains the control character U\\+00`);
    await assert.rejects(memory.editFact(fact.id, { [field]: value }), code("invalid_argument", control), field);
    const triple = { subject: "Marguerite", relation: "lives in", object: "Lyon", [field]: value };
    await assert.rejects(memory.commit([triple]), code("invalid_argument", control), field);
  }
  const skipped = h.memory.graph.commit([{ subject: "Marguerite", relation: "likes", object: "a\u0000b" }], {
    sessionId: "cli",
  }).skipped;
  assert.deepEqual(skipped, ["#1: object contains the control character U+0000: remove it (names are plain text)"]);
  assert.deepEqual((await memory.graph()).edges, [fact], "nothing changed");

  const tabbed = await memory.editFact(fact.id, { object: "Saint\tÉtienne" });
  assert.equal(tabbed.fact.object, "Saint Étienne", "white space still collapses to one space");
});
