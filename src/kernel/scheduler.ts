/**
 * Runs one input at a time. Kernel self-tasks (consolidation and the like) have their own lane, served
 * before user input so that a busy user cannot starve memory upkeep. The queue is bounded: a full queue
 * refuses new input with a clear error instead of growing without limit.
 */
import type { InputTask } from "./types.js";

export class QueueFullError extends Error {
  constructor(max: number) {
    super(`the input queue is full (${max} waiting); try again when the agent has caught up`);
    this.name = "QueueFullError";
  }
}

export interface SchedulerStats {
  enqueued: number;
  executed: number;
  rejected: number;
}

export class Scheduler {
  private readonly queue: InputTask[] = [];
  private readonly selfQueue: InputTask[] = [];
  private current: InputTask | null = null;
  private wake: (() => void) | null = null;
  private stopping = false;
  private loop: Promise<void> | null = null;
  readonly stats: SchedulerStats = { enqueued: 0, executed: 0, rejected: 0 };

  constructor(
    private readonly runTask: (task: InputTask) => Promise<void>,
    private readonly onDropped: (task: InputTask, reason: string) => void,
    private readonly maxQueue = 256,
  ) {}

  get busy(): boolean {
    return this.current !== null;
  }

  get queued(): number {
    return this.queue.length + this.selfQueue.length;
  }

  enqueue(task: InputTask): void {
    if (this.stopping) throw new Error("the agent is shutting down and takes no new input");
    if (this.queued >= this.maxQueue) {
      this.stats.rejected++;
      throw new QueueFullError(this.maxQueue);
    }
    (task.kind === "self" ? this.selfQueue : this.queue).push(task);
    this.stats.enqueued++;
    this.wake?.();
  }

  /** Takes a task that has not started out of its queue; false if it is running or already done. */
  remove(task: InputTask): boolean {
    for (const queue of [this.queue, this.selfQueue]) {
      const at = queue.indexOf(task);
      if (at >= 0) {
        queue.splice(at, 1);
        return true;
      }
    }
    return false;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Finishes the task in hand, drops the rest (each told why), and resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const task of [...this.selfQueue.splice(0), ...this.queue.splice(0)]) {
      this.onDropped(task, "the daemon is shutting down; this message was not answered");
    }
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      const task = this.selfQueue.shift() ?? this.queue.shift();
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
        this.onDropped(task, `internal error: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        this.current = null;
        this.stats.executed++;
      }
    }
  }
}
