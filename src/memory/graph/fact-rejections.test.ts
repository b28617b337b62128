/**
 * A correction sticks: a fact the user edited or deleted is not stored again by the automatic paths (the
 * rule distiller's pending candidates, the archive loop's documents) that still read what stated it, while
 * an explicit commit of it (the user's, the model's memory tool) brings it back. The rejections are bounded,
 * forgotten with what forgetting forgets, and added to a memory.db made before they existed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { directJobs } from "../../../test/fixtures/distill-fakes.js";
import { openGraph } from "../../../test/fixtures/memory-graph.js";
import { openLayers, storedEvent } from "../../../test/fixtures/memory-layers.js";
import { startMemoryAgent } from "../../../test/fixtures/memory-system.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { runArchiveLoop } from "../distill/archive.js";
import { DistillPipeline } from "../distill/pipeline.js";
import { memoryApis } from "../memory-api.js";
import { hasTable, migrateTables, openMemoryStore } from "../store.js";
import { commitFacts } from "./fact-commit.js";
import { deleteFactById, editFactById } from "./fact-edit.js";
import { GraphDB } from "./graph.js";
import { GRAPH_MIGRATIONS } from "./rules.js";

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2024, 4, 1, 9);

type Graph = GraphDB;
const facts = (graph: Graph, name = "用户") =>
  graph
    .relationsOf(name)
    .map((r) => `${r.subject} ${r.relation} ${r.object}`)
    .sort();
const idOf = (graph: Graph, object: string) => {
  const r = graph.relationsOf(object).find((x) => x.object === object);
  assert.ok(r, `a fact about ${object}`);
  return r.id;
};

/** A real GraphDB with the rule pipeline in front of it, its jobs run at once. */
function distilling() {
  const g = openGraph({ now: () => T0 });
  const pipeline = new DistillPipeline({ db: g.db, graph: g.graph, runJob: directJobs(), now: () => T0 });
  const distill = async (...lines: string[]) => {
    for (const input of lines) pipeline.offer({ ts: T0, source: "cli", input });
    return pipeline.tick();
  };
  return { ...g, pipeline, distill };
}

test("a fact the user deleted does not come back from its turn's pending distill candidate (zh and en)", async (t) => {
  const h = startMemoryAgent();
  t.after(() => h.close());
  const memory = memoryApis(h.memory).memory;
  // The model stores what the user said; the turn's candidate waits for the pipeline's next tick.
  for (const [line, object] of [
    ["我住在北京", "北京"],
    ["I live in Paris", "Paris"],
  ]) {
    h.llm.enqueue(
      {
        toolCalls: [
          { name: "memory_commit", arguments: { triples: [{ subject: "用户", relation: "居住地", object }] } },
        ],
      },
      { text: "noted" },
    );
    await h.say(line);
  }
  assert.equal(h.memory.pipeline.pending(), 2, "both turns' candidates are pending");
  const page = await memory.graph({ limit: 10 });
  assert.equal(page.edges.length, 2);
  for (const e of page.edges) assert.deepEqual(await memory.deleteFact(e.id), { removed: 1 });

  const summary = await h.memory.pipeline.tick();
  assert.equal(summary.distilled, 2);
  assert.equal(summary.rejected, 2, "both re-extracted facts were skipped, and counted");
  assert.deepEqual((await memory.graph({ limit: 10 })).edges, [], "neither fact came back");
  assert.deepEqual(h.memory.graph.introspect().rejected, { facts: 2, skips: 2 });
});

test("a deleted fact does not come back when the archive loop distills a document that states it", async () => {
  let now = T0;
  const layers = openLayers({ now: () => now });
  const graph = new GraphDB(layers.db, layers.index, { now: () => now, timeZone: "UTC" });
  graph.commit([{ subject: "用户", relation: "居住地", object: "北京" }], { sessionId: "cli" });
  layers.docs.archive([storedEvent(1, T0, "我住在北京，我喜欢爬山", { response: "ok" })]);
  deleteFactById(graph, idOf(graph, "北京"));

  now = T0 + 73 * HOUR;
  const summary = await runArchiveLoop({
    db: layers.db,
    docs: layers.docs,
    graph,
    runJob: directJobs(),
    now: () => now,
    timeZone: "UTC",
  });
  assert.match(summary, /^archive: 1 cold documents → .*, 1 facts skipped as removed by the user \(0 failed\)$/);
  assert.deepEqual(facts(graph), ["用户 喜好 爬山"], "the rest of the document still comes in");
  await layers.index.close();
  layers.db.close();
});

test("after an edit of the subject, the relation or the object, the old fact stays out and the new one stays", async () => {
  const cases = [
    { change: { subject: "小明" }, kept: ["小明", "小明 居住地 北京"] },
    { change: { relation: "老家" }, kept: ["用户", "用户 老家 北京"] },
    { change: { object: "上海" }, kept: ["用户", "用户 居住地 上海"] },
  ] as const;
  for (const { change, kept } of cases) {
    const s = distilling();
    await s.distill("我住在北京");
    assert.deepEqual(facts(s.graph), ["用户 居住地 北京"]);
    editFactById(s.graph, idOf(s.graph, "北京"), change);
    const summary = await s.distill("我住在北京", "我住在北京。");
    assert.equal(summary.rejected, 2, JSON.stringify(change));
    assert.deepEqual(facts(s.graph, kept[0]), [kept[1]], JSON.stringify(change));
    if (kept[0] !== "用户") assert.deepEqual(facts(s.graph), [], "the old subject has nothing left");
    await s.close();
  }
});

test("the model's memory_edit also keeps the old fact out of automatic distillation", async (t) => {
  const h = startMemoryAgent();
  t.after(() => h.close());
  h.memory.pipeline.offer({ ts: Date.now(), source: "cli", input: "I live in Paris" });
  await h.memory.pipeline.tick();
  await h.tool("memory_edit", { old_subject: "用户", old_relation: "居住地", old_object: "Paris", new_object: "Lyon" });
  h.memory.pipeline.offer({ ts: Date.now(), source: "cli", input: "I live in Paris" });
  assert.equal((await h.memory.pipeline.tick()).rejected, 1);
  assert.deepEqual(facts(h.memory.graph), ["用户 居住地 Lyon"]);
});

test("a rejected fact is matched however its names are written: case, full-width forms, spaces", async () => {
  const { graph, close } = openGraph();
  graph.commit([{ subject: "用户", relation: "居住地", object: "Paris" }]);
  graph.deleteFact({ subject: "用户", relation: "居住地", object: "Paris" });
  const r = graph.commit([
    { subject: " 用户 ", relation: "居住地", object: "ＰＡＲＩＳ" },
    { subject: "用户", relation: "居住地", object: "paris" },
    { subject: "用户", relation: "居住地", object: "Paris Texas" },
  ]);
  assert.equal(r.rejected, 2);
  assert.equal(r.relations, 1, "a different fact is not caught");
  assert.deepEqual(r.skipped, [
    '#1: the user removed "用户 居住地 PARIS" from memory',
    '#2: the user removed "用户 居住地 paris" from memory',
  ]);
  assert.equal(graph.introspect().sentences, 0);
  const cited = graph.commit([{ subject: "用户", relation: "居住地", object: "Paris" }], {
    sentence: "I live in Paris",
  });
  assert.equal(cited.rejected, 1);
  assert.equal(graph.introspect().sentences, 0, "a sentence nothing cites is not kept");
  await close();
});

test("an explicit commit of a rejected fact brings it back and lifts the rejection (user and model)", async (t) => {
  const s = distilling();
  t.after(() => s.close());
  await s.distill("我住在北京", "I live in Paris");
  deleteFactById(s.graph, idOf(s.graph, "北京"));
  deleteFactById(s.graph, idOf(s.graph, "Paris"));

  // The user adds it again in the dashboard.
  assert.deepEqual(commitFacts(s.graph, [{ subject: "用户", relation: "居住地", object: "北京" }], undefined), {
    added: 1,
    updated: 0,
  });
  // The model commits it with its memory tool, in a turn with the user.
  const r = s.graph.commit([{ subject: "用户", relation: "居住地", object: "paris" }], {
    sessionId: "cli",
    explicit: true,
  });
  assert.deepEqual([r.relations, r.lifted, r.rejected], [1, 1, 0]);
  assert.deepEqual(s.graph.introspect().rejected, { facts: 0, skips: 0 });
  const summary = await s.distill("我住在北京", "I live in Paris");
  assert.equal(summary.rejected, 0, "no longer rejected: distillation refreshes it like any fact");
  // One row per session: the explicit commit's and the distiller's (the entity is "paris" as committed).
  assert.deepEqual(facts(s.graph), ["用户 居住地 paris", "用户 居住地 paris", "用户 居住地 北京", "用户 居住地 北京"]);
});

test("the memory_commit tool says when it stored a fact the user had removed", async (t) => {
  const h = startMemoryAgent();
  t.after(() => h.close());
  const triple = { subject: "用户", relation: "喜好", object: "咖啡" };
  await h.tool("memory_commit", { triples: [triple] });
  h.memory.graph.deleteFact(triple);
  const out = (await h.tool("memory_commit", { triples: [triple] })) as { lifted: number; summary: string };
  assert.equal(out.lifted, 1);
  assert.match(out.summary, /1 the user had removed stored again/);
});

test("the rejections are bounded: over the limit the oldest go, with a warning", async () => {
  const warnings: string[] = [];
  const g = openGraph();
  const graph = new GraphDB(g.db, g.index, { maxRejections: 3, log: { warn: (m) => warnings.push(m) } });
  const cities = ["Oslo", "Rome", "Lima", "Kyiv", "Baku"];
  for (const object of cities) {
    graph.commit([{ subject: "用户", relation: "居住地", object }]);
    graph.deleteFact({ subject: "用户", relation: "居住地", object });
  }
  assert.equal(graph.introspect().rejected.facts, 3);
  assert.equal(warnings.length, 2);
  assert.match(warnings[0], /more than 3 facts removed by the user .* the 1 oldest were dropped/);
  const r = graph.commit(cities.map((object) => ({ subject: "用户", relation: "居住地", object })));
  assert.deepEqual(facts(graph), ["用户 居住地 Oslo", "用户 居住地 Rome"], "only the two oldest may come back");
  assert.equal(r.rejected, 3);
  assert.throws(() => new GraphDB(g.db, g.index, { maxRejections: 0 }), /bound must be ≥ 1/);
  await g.close();
});

test("a memory.db made before rejections existed gets the table and keeps its facts", async () => {
  const path = join(tempDir("graph-rejections-"), "memory.db");
  const old = openMemoryStore(path);
  migrateTables(old, "graph", GRAPH_MIGRATIONS.slice(0, 1));
  old.exec(`INSERT INTO entities (id, name, type, created_at, updated_at) VALUES (1, '用户', 'Person', 1, 1), (2, '北京', 'Place', 1, 1);
    INSERT INTO relations (source_id, target_id, relation_type, created_at, updated_at, date_bucket, session_id)
    VALUES (1, 2, '居住地', 1, 1, '2024-05-01', 'distill');`);
  old.close();

  const { graph, db, close } = openGraph({ path });
  assert.equal(db.prepare("SELECT version FROM schema_versions WHERE layer = 'graph'").pluck().get(), 3);
  assert.deepEqual(facts(graph), ["用户 居住地 北京"]);
  deleteFactById(graph, idOf(graph, "北京"));
  assert.equal(graph.commit([{ subject: "用户", relation: "居住地", object: "北京" }]).rejected, 1);
  await close();
});

test("forgetting a name also drops the rejected facts that mention it", async (t) => {
  const h = startMemoryAgent();
  t.after(() => h.close());
  const graph = h.memory.graph;
  const rejected = (subject: string, relation: string, object: string) =>
    graph.commit([{ subject, relation, object }]).rejected === 1;
  const reject = (subject: string, relation: string, object: string) => {
    graph.commit([{ subject, relation, object }], { explicit: true });
    graph.deleteFact({ subject, relation, object });
  };
  for (const object of ["北京", "Paris"]) reject("用户", "居住地", object);
  reject("Marguerite", "likes", "tea");
  reject("Carol King", "pin is 4242-otter-mango", "First Bank");
  assert.equal(graph.introspect().rejected.facts, 4);

  await h.memory.forgetting.forget("北京");
  await h.memory.forgetting.forget("4242-otter-mango");
  assert.equal(graph.introspect().rejected.facts, 2, "forget leaves no trace of the name, nor of a phrase of one");
  assert.equal(rejected("用户", "居住地", "Paris"), true, "the others stay rejected");
  graph.commit([{ subject: "Marguerite", relation: "knows", object: "Paul" }]);
  graph.deleteEntity("marguerite");
  assert.equal(graph.introspect().rejected.facts, 1, "deleting an entity drops the rejections naming it");
  assert.equal(rejected("Marguerite", "likes", "tea"), false);
});

test("a rejection keeps no text: only keyed hashes, which another store's key does not reproduce", async () => {
  const a = openGraph({ now: () => T0 });
  const b = openGraph({ now: () => T0 });
  for (const g of [a, b]) {
    g.graph.commit([{ subject: "Alice Smith", relation: "bank pin", object: "7391-zebra-quartz" }], { explicit: true });
    g.graph.deleteFact({ subject: "Alice Smith", relation: "bank pin", object: "7391-zebra-quartz" });
  }
  const rows = (g: typeof a) => g.db.prepare("SELECT * FROM fact_rejections").all() as Array<Record<string, unknown>>;
  const text = JSON.stringify(rows(a)).toLowerCase();
  for (const word of ["alice", "smith", "bank", "pin", "7391", "zebra", "quartz"]) {
    assert.ok(!text.includes(word), `no "${word}" in ${text}`);
  }
  assert.notEqual(rows(a)[0].fact_key, rows(b)[0].fact_key, "the hash is keyed per store");
  await a.close();
  await b.close();
});

test("rejections an older HomeAgent kept as text become hashes, and still hold", async () => {
  const path = join(tempDir("graph-rejections-v2-"), "memory.db");
  const old = openMemoryStore(path);
  migrateTables(old, "graph", GRAPH_MIGRATIONS.slice(0, 2));
  old
    .prepare(
      `INSERT INTO fact_rejections (fact_key, subject, relation, object, rejected_at, skips)
     VALUES ('["用户","居住地","北京"]', '用户', '居住地', '北京', 5, 2)`,
    )
    .run();
  old.close();

  const { graph, db, close } = openGraph({ path });
  assert.equal(db.prepare("SELECT version FROM schema_versions WHERE layer = 'graph'").pluck().get(), 3);
  assert.equal(hasTable(db, "fact_rejections_text"), false);
  assert.deepEqual(graph.introspect().rejected, { facts: 1, skips: 2 });
  assert.equal(graph.commit([{ subject: "用户", relation: "居住地", object: "北京" }]).rejected, 1);
  assert.ok(!JSON.stringify(db.prepare("SELECT * FROM fact_rejections").all()).includes("北京"));
  await close();
});
