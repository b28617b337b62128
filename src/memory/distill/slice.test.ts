import assert from "node:assert/strict";
import { test } from "node:test";
import { slicedJob } from "./slice.js";

function counter(n: number) {
  let i = 0;
  return () => (i < n ? i++ : null);
}

test("a step stops once its time budget is used and says there is more", async () => {
  const done: number[] = [];
  const job = slicedJob("t", counter(3), (x) => done.push(x), { budgetMs: 0 });
  const signal = new AbortController().signal;
  assert.equal(await job.step(signal), true);
  assert.deepEqual(done, [0], "a zero budget allows one item per step");
  assert.equal(await job.step(signal), true);
  assert.equal(await job.step(signal), true);
  assert.equal(await job.step(signal), false, "nothing left");
  assert.deepEqual(done, [0, 1, 2]);
});

test("within budget a step takes everything; an aborted signal ends the job", async () => {
  const done: number[] = [];
  const job = slicedJob("t", counter(100), (x) => done.push(x), { budgetMs: 10_000 });
  assert.equal(await job.step(new AbortController().signal), false);
  assert.equal(done.length, 100);

  const ac = new AbortController();
  ac.abort();
  const stopped = slicedJob("t", counter(5), () => assert.fail("no item after abort"));
  assert.equal(await stopped.step(ac.signal), false);
});

test("begin runs at the start of every step, before any item", async () => {
  const log: string[] = [];
  let i = 0;
  const job = slicedJob(
    "t",
    () => (i < 2 ? i++ : null),
    (x) => log.push(`item ${x}`),
    { budgetMs: 0, begin: () => log.push("begin") },
  );
  const signal = new AbortController().signal;
  while (await job.step(signal));
  assert.deepEqual(log, ["begin", "item 0", "begin", "item 1", "begin"]);
});
