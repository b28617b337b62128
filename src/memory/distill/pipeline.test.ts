import assert from "node:assert/strict";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { test } from "node:test";
import { directJobs } from "../../../test/fixtures/distill-fakes.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { SearchIndex } from "../../retrieval/search.js";
import { GraphDB } from "../graph/graph.js";
import { openMemoryStore } from "../store.js";
import { DISTILL_SESSION, DistillPipeline, type PipelineOptions } from "./pipeline.js";
import type { CommitOpts } from "./ports.js";
import { runReviewLoop } from "./review.js";
import type { Triple } from "./triple.js";

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2024, 4, 1);

/** Records commits; `delayMs` of CPU each makes a 40 ms job step hold only a few. */
function recordingGraph(delayMs = 0) {
  const commits: Array<{ triples: Triple[]; opts?: CommitOpts }> = [];
  let failNext = 0;
  return {
    commits,
    failTimes(n: number) {
      failNext = n;
    },
    commit(triples: readonly Triple[], opts?: CommitOpts) {
      const until = performance.now() + delayMs;
      while (performance.now() < until);
      if (failNext > 0) {
        failNext--;
        throw new Error("disk full");
      }
      commits.push({ triples: [...triples], opts });
      return { entities: 0, relations: triples.length, skipped: [] };
    },
  };
}

function setup(
  opts: PipelineOptions & {
    path?: string;
    now?: () => number;
    jobs?: ReturnType<typeof directJobs>;
    delayMs?: number;
  } = {},
) {
  const path = opts.path ?? join(tempDir("distill-pipeline-"), "memory.db");
  const db = openMemoryStore(path);
  const graph = recordingGraph(opts.delayMs);
  const jobs = opts.jobs ?? directJobs();
  const pipeline = new DistillPipeline({ db, graph, runJob: jobs, now: opts.now ?? (() => T0) }, opts);
  return { path, db, graph, jobs, pipeline };
}

const said = (input: string, ts = T0, source = "cli") => ({ ts, source, input });

test("a tick commits the rule triples of each candidate, citing its sentence, and removes it", async () => {
  const { graph, jobs, pipeline } = setup();
  assert.equal(pipeline.offer(said("我叫小明，我住在北京", T0 - 1000)), true);
  assert.equal(pipeline.offer(said("I like jazz")), true);
  assert.equal(pipeline.offer(said("What's the weather today?")), false, "no I/my/我: cannot state a fact");
  assert.equal(pipeline.offer({ ...said("I live in Oslo"), noMemory: true }), false);
  assert.equal(pipeline.pending(), 2);

  const summary = await pipeline.tick();
  assert.deepEqual(summary, { distilled: 2, triples: 3, rejected: 0, failed: 0, expired: 0, pending: 0 });
  assert.deepEqual(jobs.names, ["distill.pipeline"]);
  assert.deepEqual(
    graph.commits.map((c) => [c.triples.map((t) => `${t.relation}:${t.object}`), c.opts]),
    [
      [["姓名:小明", "居住地:北京"], { sessionId: DISTILL_SESSION, sentence: "我叫小明，我住在北京", ts: T0 - 1000 }],
      [["喜好:jazz"], { sessionId: DISTILL_SESSION, sentence: "I like jazz", ts: T0 }],
    ],
  );
});

test("candidates survive a restart: a new pipeline on the same memory.db distills them", async () => {
  const first = setup();
  first.pipeline.offer(said("I work as a nurse"));
  first.db.close();

  const second = setup({ path: first.path });
  assert.equal(second.pipeline.pending(), 1);
  await second.pipeline.tick();
  assert.equal(second.graph.commits[0].triples[0].object, "nurse");
  assert.equal(second.pipeline.pending(), 0);
});

test("a failed commit keeps its candidate for the next tick; the rest of the batch goes on", async () => {
  const { db, graph, pipeline } = setup({ batchSize: 2 });
  for (const city of ["Paris", "Lyon", "Nice", "Metz", "Caen"]) pipeline.offer(said(`I live in ${city}`));
  graph.failTimes(1);
  const first = await pipeline.tick();
  assert.deepEqual(first, { distilled: 4, triples: 4, rejected: 0, failed: 1, expired: 0, pending: 1 });
  assert.equal(db.prepare("SELECT attempts FROM distill_candidates").pluck().get(), 1);

  const second = await pipeline.tick();
  assert.deepEqual(second, { distilled: 1, triples: 1, rejected: 0, failed: 0, expired: 0, pending: 0 });
  assert.deepEqual(graph.commits.map((c) => c.triples[0].object).sort(), ["Caen", "Lyon", "Metz", "Nice", "Paris"]);
});

test("candidates older than the retention are dropped, at a tick and at start", async () => {
  let now = T0;
  const s = setup({ now: () => now });
  s.pipeline.offer(said("I live in Paris", T0 - 8 * DAY));
  s.pipeline.offer(said("I live in Lyon", T0 - 6 * DAY));
  const summary = await s.pipeline.tick();
  assert.equal(summary.expired, 1);
  assert.deepEqual(
    s.graph.commits.map((c) => c.triples[0].object),
    ["Lyon"],
  );

  s.graph.failTimes(1);
  s.pipeline.offer(said("I live in Nice", T0));
  await s.pipeline.tick(); // fails: stays
  s.db.close();
  now = T0 + 8 * DAY;
  const again = setup({ path: s.path, now: () => now });
  assert.equal(again.pipeline.pending(), 0, "expired while the daemon was down");
});

test("the table is capped: the newest candidates are kept, at start and on offer", () => {
  const s = setup();
  const insert = s.db.prepare(
    "INSERT INTO distill_candidates (ts, session, role, content) VALUES (?, 'cli', 'user', ?)",
  );
  s.db.transaction(() => {
    for (let i = 0; i < 5010; i++) insert.run(T0, `I like thing${i}`);
  })();
  s.db.close();

  const again = setup({ path: s.path });
  assert.equal(again.pipeline.pending(), 5000, "startup load capped at 5000");
  const oldest = again.db.prepare("SELECT content FROM distill_candidates ORDER BY id LIMIT 1").pluck().get();
  assert.equal(oldest, "I like thing10");

  const small = setup({ maxPending: 3 });
  for (let i = 0; i < 5; i++) small.pipeline.offer(said(`I like thing${i}`));
  assert.deepEqual(small.db.prepare("SELECT content FROM distill_candidates ORDER BY id").pluck().all(), [
    "I like thing2",
    "I like thing3",
    "I like thing4",
  ]);
});

test("forgetting removes matching candidates; a preview only counts them", () => {
  const { pipeline } = setup();
  pipeline.offer(said("I live in Rosebud street"));
  pipeline.offer(said("I like jazz"));
  const match = (text: string) => text.toLowerCase().includes("rosebud");
  assert.equal(pipeline.matches(match), 1);
  assert.equal(pipeline.pending(), 2);
  assert.equal(pipeline.purge(match), 1);
  assert.equal(pipeline.pending(), 1);
});

test("a candidate forgotten while a tick is under way (between two steps) is not distilled", async () => {
  let pipeline: DistillPipeline | undefined;
  const jobs = directJobs({
    afterStep: (n) => {
      if (n === 1) pipeline?.purge((text) => text.includes("Rosebud"));
    },
  });
  const s = setup({ jobs, delayMs: 15 });
  pipeline = s.pipeline;
  for (let i = 0; i < 3; i++) s.pipeline.offer(said(`I like jazz${i}`));
  for (let i = 0; i < 20; i++) s.pipeline.offer(said(`I live in Rosebud${i}`));
  const summary = await s.pipeline.tick();
  assert.ok(jobs.steps > 1);
  const cities = s.graph.commits.map((c) => c.triples[0].object).filter((o) => o.startsWith("Rosebud"));
  assert.deepEqual(cities, [], "the first step took only the three lines before them");
  assert.equal(summary.pending, 0);
});

test("concurrent ticks share one run", async () => {
  const { jobs, pipeline } = setup();
  pipeline.offer(said("I like jazz"));
  const [a, b] = await Promise.all([pipeline.tick(), pipeline.tick()]);
  assert.equal(a, b);
  assert.equal(jobs.names.length, 1);
});

test("with the real graph: facts said in both languages land on one subject, then review clears their sentences", async () => {
  const path = join(tempDir("distill-pipeline-"), "memory.db");
  const db = openMemoryStore(path);
  const index = new SearchIndex(db, { embedder: null });
  const graph = new GraphDB(db, index, { timeZone: "UTC" });
  const pipeline = new DistillPipeline({ db, graph, runJob: directJobs(), now: () => T0 });
  pipeline.offer(said("我住在北京"));
  pipeline.offer(said("I like jazz and I work as a nurse"));
  await pipeline.tick();
  assert.deepEqual(
    graph
      .relationsOf("用户")
      .map((r) => `${r.relation}:${r.object}`)
      .sort(),
    ["喜好:jazz", "居住地:北京", "职业:nurse"],
  );
  assert.equal(graph.entity("用户")?.type, "Person");
  assert.equal(graph.entity("北京")?.type, "Place");

  const tasks: string[] = [];
  const summary = await runReviewLoop({ graph, runJob: directJobs(), selfTask: async (text) => tasks.push(text) });
  assert.equal(summary, "review: 3 facts reviewed, 2 orphan sentences deleted");
  assert.equal(graph.introspect().sentences, 0);
  assert.equal(graph.withSentences(5).length, 0, "each fact is reviewed once");
  await index.close();
});

test("the candidate of a version that left the window waits aside, undistilled, until that version comes back", async () => {
  const { graph, pipeline } = setup();
  const lived = { ts: T0 - 1000, input: "我住在北京", noMemory: false };
  const asked = { ts: T0 - 500, input: "我住在上海", noMemory: false };
  pipeline.offer(said(lived.input, lived.ts));
  assert.equal(pipeline.swapped(lived, asked), 1, "asked again: the first version's candidate waits aside");
  assert.equal(pipeline.pending(), 0);
  await pipeline.tick();
  assert.equal(graph.commits.length, 0, "a replaced version is not distilled");
  assert.equal(pipeline.swapped(asked, lived), 1, "chosen back: it waits to be distilled again");
  assert.equal(pipeline.pending(), 1);
  await pipeline.tick();
  assert.equal(graph.commits.length, 1);
  assert.equal(pipeline.swapped(asked, lived), 0, "distilled once: not offered again");
  assert.equal(pipeline.swapped({ ...lived, noMemory: true }, asked), 0, "a NoMemory turn offered nothing");
});
