import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { directJobs } from "../../../test/fixtures/distill-fakes.js";
import { openLayers, userEvent } from "../../../test/fixtures/memory-layers.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { openMemoryStore } from "../store.js";
import { MERGE_TOOLS, REVIEW_TOOLS } from "./consolidation.js";
import { PruneBatch, runDistillLoop } from "./context-loop.js";
import { MAX_MERGE_TASKS, type MergeCursor, NO_MERGE_ROUNDS, NoMergeMarkers, runMergeLoop } from "./merge.js";
import type { EntityLite, ReviewRelation } from "./ports.js";
import { runReviewLoop } from "./review.js";
import { bigramJaccard, entitySimilarity } from "./similarity.js";

const T0 = Date.UTC(2024, 4, 1);
const noPipeline = { tick: async () => ({ distilled: 0, triples: 0, rejected: 0, failed: 0, expired: 0, pending: 0 }) };

test("distill prunes the window to max_context_size only when it holds more than twice that", async () => {
  const layers = openLayers();
  const jobs = directJobs();
  const deps = { pipeline: noPipeline, context: layers.context, maxContextSize: () => 5, runJob: jobs };
  for (let i = 0; i < 10; i++) await layers.context.append(userEvent(T0 + i, `message number ${i}`));
  assert.match(await runDistillLoop(deps), /window 10 events \(limit 5\), pruned 0$/);
  assert.equal(layers.context.size(), 10, "exactly 2 × max: left alone");
  assert.deepEqual(jobs.names, []);

  await layers.context.append(userEvent(T0 + 10, "message number 10"));
  assert.match(await runDistillLoop(deps), /window 11 events \(limit 5\), pruned 6$/);
  assert.equal(layers.context.size(), 5);
  assert.deepEqual(jobs.names, ["distill.prune"]);
  const archived = layers.docs.list({ limit: 50 }).reduce((n, d) => n + layers.docs.turns(d.id).length, 0);
  assert.equal(archived, 6, "what left the window was archived (in one document per batch), not dropped");
});

test("a prune batch grows while steps are quick and shrinks when one is slow, never below one event", () => {
  const batch = new PruneBatch(25);
  batch.adjust(5);
  assert.equal(batch.size, 2, "grows by half at most (rounded up)");
  batch.adjust(5);
  assert.equal(batch.size, 3);
  batch.adjust(5);
  batch.adjust(20);
  assert.equal(batch.size, 7, "near the target: scaled to it (5 × 25 / 20, rounded up)");
  batch.adjust(100);
  assert.equal(batch.size, 1);
  batch.adjust(500);
  assert.equal(batch.size, 1, "a fixed cost over the target alone still prunes one event a step");
});

test("the prune query is the newest user input, so related older events stay", async () => {
  let query: string | undefined;
  const events = [
    { kind: "user", input: "what about jazz?" },
    { kind: "agent", input: "" },
  ];
  const context = {
    size: () => 100,
    window: async () => events,
    prune: async (q: string) => {
      query = q;
      return [];
    },
  };
  await runDistillLoop({ pipeline: noPipeline, context, maxContextSize: () => 30, runJob: directJobs() });
  assert.equal(query, "what about jazz?");
});

function entity(id: number, name: string, mentionCount = 1): EntityLite {
  return { id, name, type: "Concept", mentionCount };
}

/** Entities 1..n where each even one has a near-twin (the next id): "北京市 1" / "北京市 1号". */
function twinGraph(pairs: number) {
  const all: EntityLite[] = [];
  for (let i = 0; i < pairs; i++) {
    all.push(entity(2 * i + 1, `Springfield ${i}`, 3), entity(2 * i + 2, `Springfield ${i}x`, 1));
  }
  return {
    graph: {
      entities: ({ offset, limit }: { offset: number; limit: number }) => all.slice(offset, offset + limit),
      entityById: (id: number) => all.find((e) => e.id === id) ?? null,
    },
    index: {
      nearest: (id: string) => {
        const n = Number(id.slice(4));
        const twin = n % 2 ? n + 1 : n - 1;
        return [
          { id, similarity: 1 },
          { id: `ent:${twin}`, similarity: 0.2 },
          { id: "doc:unrelated", similarity: 0.9 },
        ];
      },
    },
  };
}

test("merge asks about at most five pairs per tick, with only memory_merge and memory_edit", async () => {
  const db = openMemoryStore(join(tempDir("merge-"), "memory.db"));
  const tasks: Array<{ text: string; tools: string[] }> = [];
  const { graph, index } = twinGraph(8);
  const deps = {
    graph,
    index,
    markers: new NoMergeMarkers(db),
    runJob: directJobs(),
    selfTask: async (text: string, opts: { tools: string[] }) => tasks.push({ text, tools: opts.tools }),
  };
  const cursor: MergeCursor = { offset: 0 };
  assert.match(await runMergeLoop(deps, cursor), /5 consolidation tasks \(0 failed\)$/);
  assert.equal(tasks.length, MAX_MERGE_TASKS);
  for (const t of tasks) assert.deepEqual(t.tools, [...MERGE_TOOLS]);
  assert.deepEqual([...MERGE_TOOLS], ["memory_merge", "memory_edit"]);
  // The less mentioned twin is the one merged away.
  assert.match(tasks[0].text, /source = "Springfield 0x"，target = "Springfield 0"/);

  // Next tick: the cursor continues and proposed pairs are not asked again.
  tasks.length = 0;
  await runMergeLoop(deps, cursor);
  assert.equal(tasks.length, 3, "the three remaining pairs");
  tasks.length = 0;
  await runMergeLoop(deps, cursor);
  assert.equal(tasks.length, 0, "every pair is marked");
});

test("no-merge markers fade after their rounds, then the pair may be asked about again", async () => {
  const db = openMemoryStore(join(tempDir("merge-"), "memory.db"));
  const markers = new NoMergeMarkers(db);
  const { graph, index } = twinGraph(1);
  let asked = 0;
  const deps = {
    graph,
    index,
    markers,
    runJob: directJobs(),
    selfTask: async () => {
      asked++;
    },
  };
  const cursor = { offset: 0 };
  await runMergeLoop(deps, cursor);
  assert.equal(asked, 1);
  for (let round = 1; round < NO_MERGE_ROUNDS; round++) await runMergeLoop(deps, cursor);
  assert.equal(asked, 1, "still marked");
  await runMergeLoop(deps, cursor);
  assert.equal(asked, 2, "the marker faded");
  assert.equal(new NoMergeMarkers(db).has("springfield 0X", "Springfield 0"), true, "durable, case-insensitive");
});

test("merge skips pairs below the threshold and entities the index does not know", async () => {
  const db = openMemoryStore(join(tempDir("merge-"), "memory.db"));
  const all = [entity(1, "Paris"), entity(2, "London"), entity(3, "Ghost")];
  let asked = 0;
  const summary = await runMergeLoop(
    {
      graph: { entities: ({ offset, limit }) => all.slice(offset, offset + limit), entityById: (id) => all[id - 1] },
      index: {
        nearest: (id) => {
          if (id === "ent:3") throw new Error("no such item");
          return [{ id: id === "ent:1" ? "ent:2" : "ent:1", similarity: 0.5 }];
        },
      },
      markers: new NoMergeMarkers(db),
      runJob: directJobs(),
      selfTask: async () => {
        asked++;
      },
    },
    { offset: 0 },
  );
  assert.equal(asked, 0);
  assert.match(summary, /^merge: scanned 3 entities, 0 consolidation tasks/);
});

test("similarity is the larger of bigram Jaccard and cosine", () => {
  assert.equal(bigramJaccard("北京", "北京"), 1);
  assert.equal(bigramJaccard("New York", "new york"), 1);
  assert.ok(bigramJaccard("北京市", "北京") < 0.75);
  assert.ok(bigramJaccard("Springfield 1", "Springfield 1x") > 0.75);
  assert.equal(bigramJaccard("a", "b"), 0);
  assert.equal(entitySimilarity("car", "automobile", 0.9), 0.9);
  assert.equal(entitySimilarity("car", "automobile", null), bigramJaccard("car", "automobile"));
});

function reviewGraph(n: number) {
  const relations: ReviewRelation[] = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    subject: "用户",
    relation: "居住地",
    object: `城市${i}`,
    sentence: `我住在城市${i}`,
  }));
  const cleared: number[][] = [];
  return {
    cleared,
    withSentences: (limit: number) => relations.slice(0, limit),
    clearSentences: (ids: readonly number[]) => {
      cleared.push([...ids]);
      return ids.length;
    },
  };
}

test("review sends at most five facts with their sentences, then clears their citations", async () => {
  const graph = reviewGraph(7);
  const tasks: Array<{ text: string; tools: string[] }> = [];
  const summary = await runReviewLoop({
    graph,
    runJob: directJobs(),
    selfTask: async (text, opts) => tasks.push({ text, tools: opts.tools }),
  });
  assert.equal(summary, "review: 5 facts reviewed, 5 orphan sentences deleted");
  assert.equal(tasks.length, 1);
  assert.deepEqual(tasks[0].tools, [...REVIEW_TOOLS]);
  assert.match(tasks[0].text, /1\. "用户" -\["居住地"\]-> "城市0" {2}原句 \/ sentence: "我住在城市0"/);
  assert.ok(!tasks[0].text.includes("城市5"), "only five");
  assert.deepEqual(graph.cleared, [[1, 2, 3, 4, 5]]);
});

test("a failed review task clears nothing, so the next tick reviews the same facts", async () => {
  const graph = reviewGraph(2);
  await assert.rejects(
    runReviewLoop({
      graph,
      runJob: directJobs(),
      selfTask: async () => {
        throw new Error("LLM down");
      },
    }),
    /LLM down/,
  );
  assert.deepEqual(graph.cleared, []);
  assert.equal(
    await runReviewLoop({ graph: reviewGraph(0), runJob: directJobs(), selfTask: async () => assert.fail("no task") }),
    "review: no facts with source sentences to review",
  );
});
