/**
 * The job lane: steps of non-LLM work run one at a time between turns (interrupt → self → input → job),
 * so user input waits at most one step; slow steps are reported; the lane is bounded; stop rejects what
 * is left.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { HomeAgentError } from "../util/errors.js";
import type { Job } from "./jobs.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A job of `steps` steps that logs each; step `hold` waits until `release()` is called. */
function loggingJob(name: string, steps: number, log: string[], hold = -1) {
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  let i = 0;
  const job: Job = {
    name,
    step: async () => {
      const n = i++;
      log.push(`${name}:${n}`);
      if (n === hold) await held;
      return i < steps;
    },
  };
  return { job, release: () => release() };
}

test("user input waits at most one job step: the turn runs between two steps", async () => {
  h = startAgent();
  const order: string[] = [];
  h.llm.fallback = (req) => {
    order.push(`turn:${req.messages.at(-1)?.content}`);
    return { text: "ok" };
  };
  const { job, release } = loggingJob("archive", 4, order, 1);
  const done = h.agent.enqueueJob(job);
  await waitFor(() => order.includes("archive:1"), "the held step");
  const reply = h.agent.injectInputSync("cli", "cli", "hello");
  release();
  await reply;
  await done;
  assert.deepEqual(order, ["archive:0", "archive:1", "turn:hello", "archive:2", "archive:3"]);
  assert.equal(h.agent.status().jobs, 0);
});

test("jobs take turns step by step, and a failing job rejects with its error while the others go on", async () => {
  h = startAgent();
  const order: string[] = [];
  const a = loggingJob("a", 3, order);
  const b = loggingJob("b", 2, order);
  const failing: Job = {
    name: "bad",
    step: async () => {
      throw new Error("disk full");
    },
  };
  const results = await Promise.allSettled([
    h.agent.enqueueJob(a.job),
    h.agent.enqueueJob(failing),
    h.agent.enqueueJob(b.job),
  ]);
  assert.deepEqual(order, ["a:0", "b:0", "a:1", "b:1", "a:2"]);
  assert.equal(results[0].status, "fulfilled");
  assert.equal(results[2].status, "fulfilled");
  assert.ok(results[1].status === "rejected" && /disk full/.test(String(results[1].reason)));
});

test("a step over 50 ms is reported once per job", async () => {
  const warnings: string[] = [];
  h = startAgent({ log: { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} } });
  let steps = 0;
  const slow: Job = {
    name: "reembed",
    step: async () => {
      const until = performance.now() + 60; // the step under test is slow on purpose
      while (performance.now() < until) {}
      return ++steps < 3;
    },
  };
  await h.agent.enqueueJob(slow);
  assert.equal(steps, 3);
  assert.equal(warnings.filter((w) => /job "reembed" held the lane for \d+ ms in one step/.test(w)).length, 1);
});

test("the job lane is bounded, and stop rejects every job left with the shutdown message", async () => {
  h = startAgent({ maxJobs: 2 });
  const order: string[] = [];
  const first = loggingJob("first", 2, order, 0);
  const settled = (p: Promise<void>) =>
    p.then(
      () => null,
      (err: unknown) => err,
    );
  const running = settled(h.agent.enqueueJob(first.job));
  const waiting = settled(h.agent.enqueueJob(loggingJob("second", 1, order).job));
  await assert.rejects(
    h.agent.enqueueJob(loggingJob("third", 1, order).job),
    (err) =>
      err instanceof HomeAgentError && err.code === "queue_full" && /job queue is full \(2 jobs\)/.test(err.message),
  );
  await waitFor(() => order.includes("first:0"), "the first step");
  const stopping = h.close();
  first.release();
  await stopping;
  h = undefined;
  const shutdown = (err: unknown) =>
    err instanceof HomeAgentError && err.code === "shutting_down" && /homed is shutting down/.test(err.message);
  assert.ok(shutdown(await running), "the running job, stopped after its step");
  assert.ok(shutdown(await waiting), "the waiting job");
  assert.deepEqual(order, ["first:0"], "nothing ran after stop");
});

test("a job without a name or step is refused", async () => {
  h = startAgent();
  await assert.rejects(h.agent.enqueueJob({ name: "", step: async () => false }), /needs a name/);
});
