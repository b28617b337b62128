/** The memory_* and person_* tools: argument errors, results with counts, recall marking, forgetting hooks. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ToolContext } from "@homeagent/sdk";
import { openGraph } from "../../test/fixtures/memory-graph.js";
import type { Triple } from "./graph/graph.js";
import { Indexer } from "./graph/indexer.js";
import { SocialStore } from "./graph/social.js";
import { GRAPH_TOOL_NAMES, type GraphToolDeps, graphTools } from "./graph-tools.js";

function setup(hooks: Pick<GraphToolDeps, "forget" | "rewrite"> = {}) {
  const g = openGraph();
  const indexer = new Indexer(g.graph, g.index);
  const tools = graphTools({ graph: g.graph, social: new SocialStore(g.graph), indexer, ...hooks });
  const call = async (name: string, args: Record<string, unknown> = {}, requestId = "req-1") => {
    const tool = tools.find((t) => t.def.name === name);
    assert.ok(tool, name);
    const ctx: ToolContext = { requestId, source: "cli", channel: "cli", signal: new AbortController().signal };
    return (await tool.handler(args, ctx)) as Record<string, unknown>;
  };
  return { ...g, indexer, tools, call };
}

test("the tools are the eleven of inventory §3.6 with their parameters", async () => {
  const { tools, close } = setup();
  assert.deepEqual(
    tools.map((t) => t.def.name),
    GRAPH_TOOL_NAMES,
  );
  const params = Object.fromEntries(
    tools.map((t) => [t.def.name, Object.keys((t.def.parameters.properties ?? {}) as object).join(",")]),
  );
  assert.deepEqual(params, {
    memory_recall: "query_intent,depth",
    memory_commit: "triples,sentence_text",
    memory_merge: "source,target",
    memory_purge: "subject_contains,relation_type,target_contains,mode",
    memory_edit: "old_subject,old_relation,old_object,new_subject,new_relation,new_object",
    memory_delete_entity: "name",
    memory_introspect: "",
    person_query: "name",
    person_set_trait: "name,trait,value",
    person_relate: "person_a,relation,person_b",
    person_network: "name,depth",
  });
  await close();
});

test("bad arguments get errors that say how to call again", async () => {
  const { call, close } = setup();
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["memory_commit", {}, /"triples" must be a non-empty array/],
    ["memory_commit", { triples: "Alice likes tea" }, /"triples" must be a non-empty array/],
    [
      "memory_commit",
      { triples: [{ subject: "Alice", relation: "x", object: "tea" }], sentence_text: 5 },
      /"sentence_text" must be a string/,
    ],
    ["memory_recall", { depth: 9 }, /"depth" must be an integer from 0 to 5/],
    ["memory_recall", { depth: "two" }, /"depth" must be an integer from 0 to 5/],
    ["memory_merge", { source: "Alice" }, /"target" is required/],
    [
      "memory_merge",
      { source: "Alice", target: "Bob" },
      /source "Alice" is not in memory: check the exact name with memory_recall/,
    ],
    ["memory_purge", {}, /give at least one of subject_contains, relation_type, target_contains/],
    ["memory_purge", { subject_contains: "A", mode: "all" }, /"mode" must be "soft" or "hard"/],
    [
      "memory_edit",
      { old_subject: "Alice", old_relation: "likes", old_object: "tea" },
      /give at least one of new_subject/,
    ],
    ["memory_edit", { old_subject: "Alice", old_relation: "likes" }, /"old_object" is required/],
    ["memory_delete_entity", { name: "  " }, /"name" is required and must be a non-empty string/],
    ["person_set_trait", { name: "Alice", trait: "age" }, /"value" is required/],
    ["person_relate", { person_a: "Alice", relation: "friend", person_b: 3 }, /"person_b" must be a string/],
    ["person_network", { name: "Alice", depth: 0 }, /"depth" must be an integer from 1 to 5/],
  ];
  for (const [name, args, message] of cases) {
    await assert.rejects(async () => call(name, args), message, `${name} ${JSON.stringify(args)}`);
  }
  await close();
});

test("commit, recall and introspect report what they did with counts", async () => {
  const { call, close } = setup();
  const committed = await call("memory_commit", {
    triples: [
      { subject: "Alice", relation: "likes", object: "oolong tea" },
      { subject: "我", relation: "喜欢", object: "猫" },
    ],
    sentence_text: "Alice likes oolong tea",
  });
  assert.equal(committed.summary, "2 new entities, 1 new facts, 0 refreshed, 1 skipped");
  assert.match(String((committed.skipped as string[])[0]), /"我" must be 2–50 characters/);
  const recalled = await call("memory_recall", { query_intent: "alice, nobody", depth: 1 });
  assert.deepEqual(recalled.facts, [
    {
      subject: "Alice",
      relation: "likes",
      object: "oolong tea",
      date: (recalled.facts as Array<{ date: string }>)[0].date,
      sentence: "Alice likes oolong tea",
    },
  ]);
  assert.equal(recalled.summary, "2 entities, 1 facts, 0 traits");
  const sentence = await call("memory_recall", { query_intent: "what does Alice drink" });
  assert.equal((sentence.entities as unknown[]).length, 2, "a sentence falls back to its keywords");
  const overview = await call("memory_introspect");
  assert.equal(overview.relations, 1);
  await close();
});

test("memory_recall marks what it returned, so this turn's memory index leaves it out", async () => {
  const { call, index, indexer, close } = setup();
  await call("memory_commit", { triples: [{ subject: "Alice", relation: "likes", object: "oolong tea" }] });
  const q = await index.prepare("Alice");
  assert.match(await indexer.buildContext(q, 500, "req-1"), /Alice likes oolong tea/);
  await call("memory_recall", { query_intent: "Alice" }, "req-1");
  assert.equal(await indexer.buildContext(q, 500, "req-1"), "");
  assert.match(await indexer.buildContext(q, 500, "req-2"), /Alice likes oolong tea/);
  await close();
});

test("hard purge and delete_entity forget in the other layers through the hook; soft purge does not", async () => {
  const forgotten: string[][] = [];
  const rewritten: Array<[Triple, Triple]> = [];
  const { call, close } = setup({
    forget: (terms) => {
      forgotten.push(terms);
      return { "log lines": 2 };
    },
    rewrite: (old, next) => {
      rewritten.push([old, next]);
      return { "log lines": 1 };
    },
  });
  await call("memory_commit", {
    triples: [
      { subject: "Alice", relation: "likes", object: "oolong tea" },
      { subject: "Alice", relation: "lives in", object: "Berlin" },
      { subject: "Bob", relation: "likes", object: "jazz" },
      { subject: "Carol", relation: "knows", object: "Dave" },
    ],
  });
  const soft = await call("memory_purge", { subject_contains: "Bob", mode: "soft" });
  assert.equal(soft.summary, "marked deleted 1 facts, 0 traits; 2 entities hidden, 0 sentences removed");
  assert.deepEqual(forgotten, []);
  const hard = await call("memory_purge", { subject_contains: "Alice", target_contains: "tea" });
  assert.equal(
    hard.summary,
    "deleted 1 facts, 0 traits; 1 entities removed, 0 sentences removed; elsewhere: 2 log lines",
  );
  assert.deepEqual(hard.removed, [{ subject: "Alice", relation: "likes", object: "oolong tea" }]);
  assert.deepEqual(forgotten, [["Alice", "tea"]]);
  const edited = await call("memory_edit", {
    old_subject: "Alice",
    old_relation: "lives in",
    old_object: "Berlin",
    new_object: "Munich",
  });
  assert.equal(
    edited.summary,
    'replaced 1 copies of "Alice lives in Berlin" by "Alice lives in Munich"; elsewhere: 1 log lines',
  );
  assert.deepEqual(rewritten[0][1], { subject: "Alice", relation: "lives in", object: "Munich" });
  const deleted = await call("memory_delete_entity", { name: "Carol" });
  assert.equal(deleted.summary, 'deleted "Carol": 2 entities, 1 facts, 0 traits, 0 sentences; elsewhere: 2 log lines');
  assert.deepEqual(forgotten[1], ["Carol"]);
  await close();
});

test("person tools: set a trait, relate, query, network", async () => {
  const { call, close } = setup();
  assert.equal(
    (await call("person_set_trait", { name: "Alice", trait: "age", value: "28" })).summary,
    "set Alice's age",
  );
  assert.equal(
    (await call("person_set_trait", { name: "Alice", trait: "age", value: "29" })).summary,
    `replaced Alice's age ("28" → "29")`,
  );
  assert.equal(
    (await call("person_relate", { person_a: "Alice", relation: "friend", person_b: "Bob" })).summary,
    "Alice friend Bob (both ways): 2 new facts, 0 refreshed",
  );
  const alice = await call("person_query", { name: "alice" });
  assert.equal(alice.found, true);
  assert.deepEqual(alice.traits, { age: "29" });
  assert.deepEqual(await call("person_query", { name: "Zed" }), {
    found: false,
    message: 'no one named "Zed" in memory; memory_recall finds similar names',
  });
  const net = await call("person_network", { name: "Bob" });
  assert.deepEqual(net.people, [
    { name: "Bob", distance: 0 },
    { name: "Alice", distance: 1 },
  ]);
  await close();
});
