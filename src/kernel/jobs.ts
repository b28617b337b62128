/**
 * The job lane: non-LLM work (distill, archive, re-embed batches) serialized with turns, so no memory write
 * races a running turn. A job is sliced into steps; the scheduler runs one step at a time, only when no
 * turn is waiting, so user input waits at most one step. A step should hold the lane for no more than
 * ~50 ms; one that takes longer is reported once per job. Jobs take turns step by step (round-robin), so
 * one long job cannot starve the others.
 */
import { HomeAgentError } from "../util/errors.js";

export interface Job {
  /** For logs and errors. */
  name: string;
  /** Does one slice of the work; resolves true while there is more to do. Stop early when `signal` fires. */
  step(signal: AbortSignal): Promise<boolean>;
  /**
   * How long one step may hold the lane before it is reported as slow (default SLOW_STEP_MS): for work that
   * cannot be sliced, such as rewriting a database, which user input must wait for anyway.
   */
  stepBudgetMs?: number;
}

/** A step slower than this holds user input up noticeably. */
export const SLOW_STEP_MS = 50;
const DEFAULT_MAX_JOBS = 64;

interface Pending {
  job: Job;
  resolve: () => void;
  reject: (err: unknown) => void;
  warned: boolean;
}

export class JobLane {
  private readonly queue: Pending[] = [];
  private running = 0;
  private closed = false;

  constructor(
    private readonly opts: {
      /** Aborted when the daemon stops: the running step should end early. */
      signal: AbortSignal;
      warn: (msg: string) => void;
      max?: number;
    },
  ) {}

  /** Jobs waiting or running. */
  get size(): number {
    return this.queue.length + this.running;
  }

  get hasWork(): boolean {
    return this.queue.length > 0;
  }

  /** Queues a job; the promise settles when it is done (or rejects with its error, or on shutdown). */
  enqueue(job: Job): Promise<void> {
    if (!job || typeof job.name !== "string" || !job.name || typeof job.step !== "function") {
      return Promise.reject(
        new HomeAgentError({ code: "job_invalid", message: "a job needs a name and a step(signal) function" }),
      );
    }
    if (this.closed) return Promise.reject(shutdownError(job));
    const max = this.opts.max ?? DEFAULT_MAX_JOBS;
    if (this.size >= max) {
      return Promise.reject(
        new HomeAgentError({
          code: "queue_full",
          message: `the job queue is full (${max} jobs); job "${job.name}" was not queued, try again when the running jobs are done`,
        }),
      );
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ job, resolve, reject, warned: false });
    });
  }

  /** Runs one step of the next job; a job with more to do goes to the back of the queue. */
  async step(): Promise<void> {
    const p = this.queue.shift();
    if (!p) return;
    this.running++;
    const started = performance.now();
    let more: boolean;
    try {
      more = (await p.job.step(this.opts.signal)) === true;
    } catch (err) {
      p.reject(err);
      return;
    } finally {
      this.running--;
      this.checkDuration(p, performance.now() - started);
    }
    if (!more) p.resolve();
    else if (this.closed || this.opts.signal.aborted) p.reject(shutdownError(p.job));
    else this.queue.push(p);
  }

  /** Rejects every waiting job and any job queued later (the daemon is stopping). */
  rejectAll(): void {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(shutdownError(p.job));
  }

  private checkDuration(p: Pending, ms: number): void {
    if (ms <= (p.job.stepBudgetMs ?? SLOW_STEP_MS) || p.warned) return;
    p.warned = true;
    this.opts.warn(
      `job "${p.job.name}" held the lane for ${Math.round(ms)} ms in one step (user input waits for it); slice its steps to ${SLOW_STEP_MS} ms or less`,
    );
  }
}

function shutdownError(job: Job): HomeAgentError {
  return new HomeAgentError({
    code: "shutting_down",
    message: `homed is shutting down; job "${job.name}" did not finish`,
  });
}
