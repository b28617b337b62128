/**
 * The job lane's promise: no step of a distillation job holds the lane for more than ~50 ms, at the sizes
 * reviewers measured (a 1000-event window, 3 KB events, a 970-turn document, 30 lines of 3 KB). The jobs
 * aim at 25–40 ms. What is bounded is each step's CPU time (< 80 ms), since on a loaded machine wall time
 * also counts the time other processes held the core; wall time is bounded by its median (< 60 ms). A run
 * that misses a bound is run again once (withShortSteps): the second must meet them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { directJobs, type JobRecord } from "../../../test/fixtures/distill-fakes.js";
import { openLayers, storedEvent, userEvent } from "../../../test/fixtures/memory-layers.js";
import { tokenize } from "../../embedding/text.js";
import type { ContextEvent } from "../../kernel/types.js";
import { GraphDB } from "../graph/graph.js";
import { runArchiveLoop } from "./archive.js";
import { runDistillLoop } from "./context-loop.js";
import { DistillPipeline } from "./pipeline.js";

const STEP_CPU_BOUND_MS = 80;
const MEDIAN_WALL_BOUND_MS = 60;
const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 4, 1, 9);
const noPipeline = { tick: async () => ({ distilled: 0, triples: 0, rejected: 0, failed: 0, expired: 0, pending: 0 }) };
const WORDS = "weather mountain hiking friend coffee morning music jazz 天气 爬山 朋友 咖啡 音乐 北京 周末".split(" ");

// The dictionary of the Chinese tokenizer loads on first use (~200 ms): that is the pipeline warm-up's
// business (pipeline-warmup.test.ts), not the slicing measured here.
tokenize("用户");

/** About `chars` characters of plain talk, different for each `seed`. */
function talk(seed: number, chars: number): string {
  let s = `note ${seed}:`;
  for (let k = seed; s.length < chars; k = (k * 7 + 3) % 1009) s += ` ${WORDS[k % WORDS.length]}`;
  return s;
}

function stepsProblem(jobs: JobRecord): string | undefined {
  const wall = [...jobs.stepMs].sort((a, b) => a - b);
  const median = wall[Math.floor(wall.length / 2)];
  if (jobs.maxStepCpuMs < STEP_CPU_BOUND_MS && median < MEDIAN_WALL_BOUND_MS) return undefined;
  return `${jobs.steps} steps: slowest ${jobs.maxStepCpuMs.toFixed(1)} ms CPU, ${jobs.maxStepMs.toFixed(1)} ms wall; median wall ${median.toFixed(1)} ms`;
}

/**
 * Runs `scenario` (fresh state each time) and checks its steps; one that misses the bounds is run once more,
 * and that run must meet them. Process CPU time also counts a major GC of what the test files before this
 * one left in the shared process, which a loaded machine turned into a 90 ms "step" now and then; a step
 * that is slow itself is slow twice.
 */
async function withShortSteps<T extends { jobs: JobRecord }>(scenario: () => Promise<T>): Promise<T> {
  const first = await scenario();
  if (!stepsProblem(first.jobs)) return first;
  const second = await scenario();
  const problem = stepsProblem(second.jobs);
  assert.ok(!problem, `twice: ${stepsProblem(first.jobs)}; then ${problem}`);
  return second;
}

test("distill prunes a 1000-event window to max_context_size in steps under the bound", async () => {
  const { layers, summary } = await withShortSteps(async () => {
    const layers = openLayers();
    await layers.context.insertByTimestamp(
      Array.from({ length: 1000 }, (_, i) => userEvent(T0 + i * 1000, talk(i, 100), { response: "ok" })),
    );
    const jobs = directJobs();
    const summary = await runDistillLoop({
      pipeline: noPipeline,
      context: layers.context,
      maxContextSize: () => 30,
      runJob: jobs,
      prepare: (t) => layers.index.prepare(t),
      db: layers.db,
    });
    return { layers, jobs, summary };
  });
  assert.match(summary, /window 1000 events \(limit 30\), pruned 970$/);
  assert.equal(layers.context.size(), 30);
  const archived = layers.docs.list({ limit: 500 }).reduce((n, d) => n + layers.docs.turns(d.id).length, 0);
  assert.equal(archived, 970, "every pruned event is in a document");
});

test("distill prunes a window of 3 KB events in steps under the bound", async () => {
  const { layers, summary } = await withShortSteps(async () => {
    const layers = openLayers();
    await layers.context.insertByTimestamp(
      Array.from({ length: 36 }, (_, i) => userEvent(T0 + i * 1000, talk(i, 3000), { response: talk(i + 1, 1500) })),
    );
    const jobs = directJobs();
    const summary = await runDistillLoop({
      pipeline: noPipeline,
      context: layers.context,
      maxContextSize: () => 15,
      runJob: jobs,
      db: layers.db,
    });
    return { layers, jobs, summary };
  });
  assert.match(summary, /pruned 21$/);
  assert.equal(layers.context.size(), 15);
});

function said(id: number, ts: number, input: string): ContextEvent {
  return storedEvent(id, ts, input, { response: "ok, noted" });
}

test("archive distills a 970-turn document across steps under the bound, marked only when all is in", async () => {
  const { layers, graph, doc, summary } = await withShortSteps(async () => {
    const layers = openLayers({ now: () => T0 });
    const graph = new GraphDB(layers.db, layers.index, { now: () => T0, timeZone: "UTC" });
    const turns = Array.from({ length: 970 }, (_, i) =>
      said(i + 1, T0 + i * 1000, `I like hobby${i} a lot. ${talk(i, 200)}`),
    );
    const doc = layers.docs.archive(turns)!;
    const jobs = directJobs();
    const summary = await runArchiveLoop({
      db: layers.db,
      docs: layers.docs,
      graph,
      runJob: jobs,
      now: () => T0 + 100 * HOUR,
      timeZone: "UTC",
    });
    return { layers, graph, doc, jobs, summary };
  });
  assert.match(summary, /^archive: 1 cold documents → \d+ new relations/);
  assert.equal(graph.entity("用户")?.mentionCount, 970, "every turn's fact is in, once");
  assert.notEqual(layers.docs.get(doc.id)?.distilledAt, null);
});

test("the rule pipeline distills 30 lines of 3 KB in steps under the bound", async () => {
  const { summary } = await withShortSteps(async () => {
    const layers = openLayers();
    const graph = new GraphDB(layers.db, layers.index, { timeZone: "UTC" });
    const jobs = directJobs();
    const pipeline = new DistillPipeline({ db: layers.db, graph, runJob: jobs, now: () => T0 });
    for (let i = 0; i < 30; i++) {
      const line = i % 2 ? `我喜欢爬山${i}号线。${talk(i, 3000)}` : `I like hiking trail ${i}. ${talk(i, 3000)}`;
      assert.equal(pipeline.offer({ ts: T0, source: "cli", input: line }), true);
    }
    return { jobs, summary: await pipeline.tick() };
  });
  assert.equal(summary.distilled, 30);
});
