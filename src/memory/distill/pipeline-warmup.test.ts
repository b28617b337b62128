/**
 * The first distillation of a process used to load the Chinese tokenizer's dictionary and compile the
 * rules inside its first job step (160–460 ms on a fresh daemon, with 3 short lines). The pipeline now
 * pays that when it is constructed, at start. This file runs in its own process, so nothing here has
 * loaded the dictionary before the pipeline is built.
 */
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { test } from "node:test";
import { directJobs } from "../../../test/fixtures/distill-fakes.js";
import { openLayers } from "../../../test/fixtures/memory-layers.js";
import { GraphDB } from "../graph/graph.js";
import { DistillPipeline } from "./pipeline.js";

test("the first tick of a fresh process has no warm-up inside a job step", async () => {
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
