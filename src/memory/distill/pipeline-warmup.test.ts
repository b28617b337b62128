/**
 * The first distillation of a process used to load the Chinese tokenizer's dictionary and compile the
 * rules inside its first job step (160–460 ms on a fresh daemon, with 3 short lines). The pipeline now
 * compiles the rules when it is constructed, at start; the dictionary is loaded ahead of time by the
 * daemon's warm-up when CJK text is expected (daemon/warm-up.ts), which this test does the same way. The
 * test runner may share a process between test files, so whether an earlier file loaded the dictionary is
 * not left to chance.
 */
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { test } from "node:test";
import { directJobs } from "../../../test/fixtures/distill-fakes.js";
import { openLayers } from "../../../test/fixtures/memory-layers.js";
import { preloadSegmenter } from "../../embedding/segmenter.js";
import { GraphDB } from "../graph/graph.js";
import { DistillPipeline } from "./pipeline.js";

test("the first tick of a fresh process has no warm-up inside a job step", async () => {
  await preloadSegmenter();
  const layers = openLayers();
  const graph = new GraphDB(layers.db, layers.index, { timeZone: "UTC" });
  const jobs = directJobs();
  const built = performance.now();
  const pipeline = new DistillPipeline({ db: layers.db, graph, runJob: jobs });
  const warmUpMs = performance.now() - built;
  for (const input of ["I live in Paris", "my name is Ann", "我喜欢爬山"]) {
    pipeline.offer({ ts: Date.now(), source: "cli", input });
  }
  const summary = await pipeline.tick();
  assert.equal(summary.triples, 3);
  assert.ok(
    jobs.maxStepCpuMs < 40,
    `first step ${jobs.maxStepCpuMs.toFixed(1)} ms CPU (${jobs.maxStepMs.toFixed(1)} ms wall); construction took ${warmUpMs.toFixed(1)} ms`,
  );
});
