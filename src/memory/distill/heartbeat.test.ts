import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { directJobs } from "../../../test/fixtures/distill-fakes.js";
import { FakeClock } from "../../../test/fixtures/fake-clock.js";
import { openLayers } from "../../../test/fixtures/memory-layers.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { GraphDB } from "../graph/graph.js";
import { openMemoryStore } from "../store.js";
import { Heartbeat, type HeartbeatDeps, type LoopName, PIPELINE_INTERVAL_MS } from "./heartbeat.js";
import { DistillPipeline } from "./pipeline.js";
import type { ReviewRelation } from "./ports.js";

const MIN = 60_000;
const DEFAULTS: Record<LoopName, number> = {
  distill: 30 * MIN,
  archive: 60 * MIN,
  merge: 120 * MIN,
  review: 120 * MIN,
};

/** Neighbours that do nothing but count; `log.lines` holds every summary and warning. */
function fakeDeps(overrides: Partial<HeartbeatDeps> = {}) {
  const clock = new FakeClock();
  const lines: string[] = [];
  const intervals = { ...DEFAULTS };
  const deps: HeartbeatDeps = {
    clock,
    interval: (loop) => intervals[loop],
    maxContextSize: () => 30,
    runJob: directJobs(),
    selfTask: async () => "done",
    db: openMemoryStore(join(tempDir("heartbeat-"), "memory.db")),
    pipeline: { tick: async () => ({ distilled: 0, triples: 0, rejected: 0, failed: 0, expired: 0, pending: 0 }) },
    context: { size: () => 0, window: async () => [], prune: async () => [] },
    docs: { findCold: () => [], turns: () => [], get: () => null, markDistilled: () => {} },
    graph: {
      commit: () => ({ entities: 0, relations: 0, skipped: [] }),
      entities: () => [],
      entityById: () => null,
      withSentences: () => [],
      clearSentences: () => 0,
    },
    index: { nearest: () => [] },
    log: { info: (m) => lines.push(m), warn: (m) => lines.push(`WARN ${m}`) },
    ...overrides,
  };
  return { clock, deps, lines, intervals };
}

/** Runs of each task so far, from the summaries the heartbeat logs. */
function runs(lines: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of lines) {
    const name = /^(distill|archive|merge|review|pipeline):/.exec(l)?.[1];
    if (name) out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

/** Moves the clock minute by minute, letting each fired run finish (and reschedule) before the next. */
async function advance(clock: FakeClock, hb: Heartbeat, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= Math.min(MIN, left)) {
    clock.advance(Math.min(MIN, left));
    await hb.idle();
  }
}

test("each loop fires at its interval and not before, and keeps firing", async () => {
  const { clock, deps, lines } = fakeDeps();
  const hb = new Heartbeat(deps);
  hb.start();
  assert.equal(hb.nextRun("distill"), clock.now() + 30 * MIN);
  assert.equal(hb.nextRun("pipeline"), clock.now() + PIPELINE_INTERVAL_MS);

  clock.advance(10 * MIN - 1);
  await hb.idle();
  assert.deepEqual(runs(lines), {}, "nothing fires early");
  clock.advance(1);
  await hb.idle();
  assert.deepEqual(runs(lines), { pipeline: 1 });

  await advance(clock, hb, 20 * MIN - 1);
  assert.deepEqual(runs(lines), { pipeline: 2 }, "distill waits its full 30 minutes");
  await advance(clock, hb, 1);
  assert.deepEqual(runs(lines), { pipeline: 3, distill: 1 });

  await advance(clock, hb, 90 * MIN);
  assert.deepEqual(runs(lines), { pipeline: 12, distill: 4, archive: 2, merge: 1, review: 1 });
  await hb.stop();
  assert.equal(clock.pending, 0, "stop clears every timer");
  await advance(clock, hb, 240 * MIN);
  assert.equal(runs(lines).pipeline, 12, "nothing fires after stop");
});

test("an interval of 0 turns a loop off; reschedule applies a changed interval", async () => {
  const { clock, deps, lines, intervals } = fakeDeps();
  intervals.merge = 0;
  const hb = new Heartbeat(deps);
  hb.start();
  assert.equal(hb.nextRun("merge"), null);
  await advance(clock, hb, 240 * MIN);
  assert.equal(runs(lines).merge, undefined);

  intervals.merge = 5 * MIN;
  intervals.distill = 7 * MIN;
  hb.reschedule();
  assert.equal(hb.nextRun("merge"), clock.now() + 5 * MIN);
  assert.equal(hb.nextRun("distill"), clock.now() + 7 * MIN);
  await advance(clock, hb, 5 * MIN);
  assert.equal(runs(lines).merge, 1);
  await hb.stop();
});

test("a loop never overlaps itself: a tick during a run is skipped, an on-demand run joins it", async () => {
  let release!: () => void;
  let reviewTasks = 0;
  const relation: ReviewRelation = {
    id: 1,
    subject: "用户",
    relation: "居住地",
    object: "北京",
    sentence: "我住在北京",
  };
  const { clock, deps, lines, intervals } = fakeDeps({
    selfTask: () => {
      reviewTasks++;
      return new Promise((resolve) => {
        release = () => resolve("ok");
      });
    },
  });
  deps.graph.withSentences = () => [relation];
  intervals.review = 10 * MIN;
  const hb = new Heartbeat(deps);
  hb.start();
  const first = hb.run("review");
  await waitFor(() => reviewTasks === 1, "the review self-task");
  assert.equal(hb.run("review"), first, "an on-demand run joins the one in progress");
  clock.advance(10 * MIN); // the timer fires while review is still running
  assert.equal(reviewTasks, 1);
  assert.ok(lines.includes("review loop: still running, this tick is skipped"));
  assert.equal(hb.nextRun("review"), clock.now() + 10 * MIN, "the skipped tick is rescheduled");
  release();
  assert.match(await first, /^review: 1 facts reviewed/);
  await hb.idle();
  assert.equal(reviewTasks, 1);
  await hb.stop();
});

test("a failed run is logged and the next tick retries", async () => {
  let calls = 0;
  const { clock, deps, lines } = fakeDeps();
  deps.docs.findCold = () => {
    calls++;
    if (calls === 1) throw new Error("database is locked");
    return [];
  };
  const hb = new Heartbeat(deps);
  hb.start();
  await advance(clock, hb, 60 * MIN);
  assert.ok(lines.some((l) => l === "WARN archive loop failed, retried next tick: database is locked"));
  await advance(clock, hb, 60 * MIN);
  assert.equal(calls, 2);
  assert.ok(
    lines.includes(
      "archive: 0 cold documents → 0 new relations, 0 new entities, 0 facts skipped as removed by the user (0 failed)",
    ),
  );
  await hb.stop();
});

test("run() on demand returns a summary; an unknown loop is refused with the names", async () => {
  const { deps } = fakeDeps({ context: { size: () => 3, window: async () => [], prune: async () => [] } });
  const hb = new Heartbeat(deps);
  assert.match(
    await hb.run("distill"),
    /^distill: pipeline 0 lines → 0 triples .* window 3 events \(limit 30\), pruned 0$/,
  );
  assert.match(await hb.run("pipeline"), /^pipeline: /);
  await assert.rejects(hb.run("nap"), (err: Error & { code?: string }) => {
    assert.equal(err.code, "memory_unknown_loop");
    assert.match(err.message, /distill, archive, merge, review/);
    return true;
  });
});

test("an interval that cannot be read turns the loop off with a warning instead of throwing", () => {
  const { deps, lines } = fakeDeps({
    interval: (loop) => {
      if (loop === "archive") throw new Error("bad duration");
      return DEFAULTS[loop];
    },
  });
  const hb = new Heartbeat(deps);
  hb.start();
  assert.equal(hb.nextRun("archive"), null);
  assert.ok(lines.some((l) => l.startsWith("WARN archive loop: cannot read its interval")));
  return hb.stop();
});

test("wired to the real context, documents, graph and index, every loop runs", async () => {
  const layers = openLayers();
  const graph = new GraphDB(layers.db, layers.index, { timeZone: "UTC" });
  graph.commit([{ subject: "用户", relation: "居住地", object: "北京" }], { sentence: "我住在北京" });
  const hb = new Heartbeat({
    clock: new FakeClock(),
    interval: () => 30 * MIN,
    maxContextSize: () => 30,
    runJob: directJobs(),
    selfTask: async () => "ok",
    db: layers.db,
    pipeline: new DistillPipeline({ db: layers.db, graph, runJob: directJobs() }),
    context: layers.context,
    docs: layers.docs,
    graph,
    index: layers.index,
    timeZone: "UTC",
  });
  for (const loop of ["pipeline", "distill", "archive", "merge", "review"]) {
    assert.match(await hb.run(loop), new RegExp(`^${loop}: `));
  }
  assert.equal(graph.introspect().sentences, 0, "the review loop ran against the real graph");
});
