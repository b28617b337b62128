/**
 * Runs one thing at a time, from four lanes: interrupts first (one that displaced a self-task runs next),
 * then kernel self-tasks (consolidation and the like, so that a busy user cannot starve memory upkeep),
 * then user input, and only when no turn waits, one step of a job (jobs.ts). The three turn lanes share
 * one bound: a full queue refuses new input with a clear error instead of growing without limit; the job
 * lane has its own.
 */
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { SHUTDOWN_MESSAGE } from "./cancel.js";
import { type Job, JobLane } from "./jobs.js";
import type { InputTask, TaskKind } from "./types.js";

export class QueueFullError extends HomeAgentError {
  constructor(max: number) {
    super({
      code: "queue_full",
      message: `the input queue is full (${max} waiting); try again when the agent has caught up`,
    });
  }
}

export interface SchedulerStats {
  enqueued: number;
  executed: number;
  rejected: number;
}

export class Scheduler {
  private readonly lanes: Record<TaskKind, InputTask[]> = { interrupt: [], self: [], input: [] };
  private current: InputTask | null = null;
  private wake: (() => void) | null = null;
  private stopping = false;
  private loop: Promise<void> | null = null;
  readonly stats: SchedulerStats = { enqueued: 0, executed: 0, rejected: 0 };

  constructor(
    private readonly runTask: (task: InputTask) => Promise<void>,
    private readonly onDropped: (task: InputTask, reason: string) => void,
    private readonly maxQueue = 256,
    private readonly jobs = new JobLane({ signal: new AbortController().signal, warn: () => {} }),
  ) {}

  get busy(): boolean {
    return this.current !== null;
  }

  get queued(): number {
    return this.lanes.interrupt.length + this.lanes.self.length + this.lanes.input.length;
  }

  enqueue(task: InputTask): void {
    if (this.stopping)
      throw new HomeAgentError({ code: "shutting_down", message: "homed is shutting down and takes no new input" });
    if (this.queued >= this.maxQueue) {
      this.stats.rejected++;
      throw new QueueFullError(this.maxQueue);
    }
    this.lanes[task.kind].push(task);
    this.stats.enqueued++;
    this.wake?.();
  }

  /** Queues a job; its steps run between turns. Settles when the job is done. */
  enqueueJob(job: Job): Promise<void> {
    if (this.stopping) {
      return Promise.reject(
        new HomeAgentError({ code: "shutting_down", message: "homed is shutting down and takes no new jobs" }),
      );
    }
    const done = this.jobs.enqueue(job);
    this.wake?.();
    return done;
  }

  /** Jobs waiting or running. */
  get jobCount(): number {
    return this.jobs.size;
  }

  /** Takes a task that has not started out of its queue; false if it is running or already done. */
  remove(task: InputTask): boolean {
    const lane = this.lanes[task.kind];
    const at = lane.indexOf(task);
    if (at < 0) return false;
    lane.splice(at, 1);
    return true;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Finishes the task in hand, drops the rest (each told why), and resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    const waiting = [...this.lanes.interrupt.splice(0), ...this.lanes.self.splice(0), ...this.lanes.input.splice(0)];
    for (const task of waiting) {
      this.onDropped(task, SHUTDOWN_MESSAGE);
    }
    this.jobs.rejectAll();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const task = this.lanes.interrupt.shift() ?? this.lanes.self.shift() ?? this.lanes.input.shift();
      if (!task && this.jobs.hasWork) {
        await this.jobs.step();
        // A step that never waits on IO would otherwise chain microtasks and keep new input from arriving.
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      if (!task) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = null;
        continue;
      }
      this.current = task;
      try {
        await this.runTask(task);
      } catch (err) {
        // A bug in one turn must not end the loop that serves every later input.
        this.onDropped(task, `internal error: ${errorMessage(err)}`);
      } finally {
        this.current = null;
        this.stats.executed++;
      }
    }
  }
}
