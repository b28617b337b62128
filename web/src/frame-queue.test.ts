/**
 * The frame queue with a fake clock and fake frames: adding a job many times before its frame runs it
 * once, the budget shared by all jobs, the first job always moving on, jobs taking turns, and a job that
 * throws stopping only itself.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type FrameJob, FrameQueue } from "./frame-queue";

function setup(budgetMs = 10) {
  let now = 0;
  const frames: (() => void)[] = [];
  const errors: unknown[] = [];
  const queue = new FrameQueue(
    (callback) => frames.push(callback),
    () => now,
    budgetMs,
    (error) => errors.push(error),
  );
  const runFrame = () => {
    const frame = frames.shift();
    assert.ok(frame, "no frame was requested");
    frame();
  };
  /** A job of `units` units, each taking `cost` ms of the fake clock. */
  const job = (name: string, units: number, cost: number, log: string[]): FrameJob => {
    let left = units;
    return {
      run(hasTime) {
        do {
          now += cost;
          left -= 1;
          log.push(name);
        } while (left > 0 && hasTime());
        return left > 0;
      },
    };
  };
  return { queue, frames, runFrame, job, errors };
}

describe("FrameQueue", () => {
  it("runs a job added many times before its frame once, in one frame", () => {
    const { queue, frames, runFrame, job } = setup();
    const log: string[] = [];
    const tail = job("tail", 1, 1, log);
    for (let i = 0; i < 50; i++) queue.add(tail);
    assert.equal(frames.length, 1);
    runFrame();
    assert.deepEqual(log, ["tail"]);
    assert.equal(frames.length, 0, "a frame was requested with nothing to do");
  });

  it("shares one budget per frame, always moves the first job on, the newest job first, then lets jobs take turns", () => {
    const { queue, frames, runFrame, job } = setup(10);
    const log: string[] = [];
    queue.add(job("a", 5, 4, log));
    queue.add(job("b", 5, 4, log));
    runFrame();
    assert.deepEqual(log, ["b", "b", "b"], "the newest job first, and no further than one unit past the budget");
    runFrame();
    assert.deepEqual(log.slice(3), ["a", "a", "a"], "the job not reached did not go first");
    runFrame();
    runFrame();
    assert.equal(log.filter((n) => n === "a").length, 5);
    assert.equal(log.filter((n) => n === "b").length, 5);
    assert.equal(frames.length, 0);
  });

  it("a unit over the whole budget still runs, one per frame", () => {
    const { queue, runFrame, frames, job } = setup(10);
    const log: string[] = [];
    queue.add(job("big", 3, 50, log));
    runFrame();
    runFrame();
    runFrame();
    assert.deepEqual(log, ["big", "big", "big"]);
    assert.equal(frames.length, 0);
  });

  it("a job that throws is reported and dropped, and the others run on in that frame and the next", () => {
    const { queue, frames, runFrame, job, errors } = setup(100);
    const log: string[] = [];
    // Added last to first: the newest runs first.
    queue.add(job("d", 3, 60, log));
    queue.add(job("c", 1, 1, log));
    queue.add({
      run() {
        throw new RangeError("Maximum call stack size exceeded");
      },
    });
    queue.add(job("a", 1, 1, log));
    runFrame();
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof RangeError);
    assert.deepEqual(log, ["a", "c", "d", "d"], "the jobs after the failing one did not run");
    assert.equal(frames.length, 1, "no frame was requested for the job with work left");
    runFrame();
    assert.deepEqual(log.slice(4), ["d"]);
    assert.equal(frames.length, 0);
    queue.add(job("e", 1, 1, log));
    runFrame();
    assert.deepEqual(log.slice(5), ["e"], "the queue stopped after the error");
    assert.equal(errors.length, 1, "the failing job ran again");
  });

  it("a job that keeps coming back (a stream) takes its turn at the end: it never starves the others", () => {
    const { queue, runFrame, job } = setup(10);
    const log: string[] = [];
    queue.add(job("history", 3, 20, log));
    // Done with what it had each time (one unit, over the whole budget), given more before the next frame.
    const stream = job("stream", 1, 20, log);
    for (let frame = 0; frame < 6; frame++) {
      queue.add(stream);
      runFrame();
    }
    assert.equal(log.filter((n) => n === "history").length, 3, log.join(" "));
  });
});
