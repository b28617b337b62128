/**
 * Rendering work spread over animation frames with one time budget per frame for all of it, so a long
 * reply streaming in, or fifty long replies of the history at once, never hold the main thread for long:
 * each job does a unit of work while the frame's budget lasts and gets the next frame for the rest. The
 * first job of a frame always gets one unit, so everything moves on. A job that never ran goes first:
 * the views of a page of history are made top to bottom, and the newest — at the bottom, where the reader
 * is — should show first. After that jobs take turns (round robin), and a job added again before its frame
 * runs once (coalescing). A job that throws is reported and dropped; the others run on as if it had finished.
 */

export interface FrameJob {
  /** Does work while `hasTime()` (at least one unit); returns true when it has more for the next frame. */
  run(hasTime: () => boolean): boolean;
}

export class FrameQueue {
  private jobs = new Set<FrameJob>();
  private readonly ran = new WeakSet<FrameJob>();
  private scheduled = false;

  constructor(
    private readonly requestFrame: (callback: () => void) => void,
    private readonly now: () => number,
    private readonly budgetMs: number,
    private readonly report: (error: unknown) => void = (error) => console.error(error),
  ) {}

  add(job: FrameJob): void {
    if (this.jobs.has(job)) return;
    // Only a job that never ran goes first: one that keeps coming back (a stream) takes its turn at the end.
    if (this.ran.has(job)) this.jobs.add(job);
    else this.jobs = new Set([job, ...this.jobs]);
    if (this.scheduled) return;
    this.scheduled = true;
    this.requestFrame(this.frame);
  }

  remove(job: FrameJob): void {
    this.jobs.delete(job);
  }

  private readonly frame = (): void => {
    this.scheduled = false;
    const start = this.now();
    const hasTime = (): boolean => this.now() - start < this.budgetMs;
    let first = true;
    for (const job of [...this.jobs]) {
      if (!first && !hasTime()) break;
      if (!this.jobs.delete(job)) continue;
      first = false;
      // Put back at the end: the jobs not reached this frame go first in the next.
      if (this.runJob(job, hasTime)) this.jobs.add(job);
    }
    if (this.jobs.size > 0 && !this.scheduled) {
      this.scheduled = true;
      this.requestFrame(this.frame);
    }
  };

  private runJob(job: FrameJob, hasTime: () => boolean): boolean {
    this.ran.add(job);
    try {
      return job.run(hasTime);
    } catch (error) {
      this.report(error);
      return false;
    }
  }
}
