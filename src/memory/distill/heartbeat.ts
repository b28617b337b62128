/**
 * The four heartbeat loops of the architecture document (distill 30m, archive 60m, merge 120m, review 120m)
 * plus the rule pipeline's 10-minute tick, each on its own timer from an injectable clock. Each loop can
 * also be run on demand (`/memory run <loop>`); a loop never overlaps itself (a tick that finds it running
 * is skipped, an on-demand run joins the running one). A failed run is logged and the next tick retries.
 * All non-LLM work goes through the kernel's job lane, so nothing here races a turn.
 *
 * Do not await `run()` from inside a turn or a tool: its jobs wait for the job lane, which waits for that
 * turn to end.
 */
import { type Clock, systemClock } from "../../util/clock.js";
import { errorMessage, HomeAgentError } from "../../util/errors.js";
import type { DB } from "../store.js";
import { runArchiveLoop } from "./archive.js";
import { runDistillLoop } from "./context-loop.js";
import { type MergeCursor, NoMergeMarkers, runMergeLoop } from "./merge.js";
import type { PipelineSummary } from "./pipeline.js";
import type {
  DistillLog,
  DocsPort,
  GraphCommit,
  MergeGraph,
  NearestIndex,
  ReviewGraph,
  RunJob,
  SelfTask,
  WindowPort,
} from "./ports.js";
import { runReviewLoop } from "./review.js";

export const LOOPS = ["distill", "archive", "merge", "review"] as const;
export type LoopName = (typeof LOOPS)[number];
/** The loops plus the rule pipeline's own tick. */
export type HeartbeatTask = LoopName | "pipeline";

export const PIPELINE_INTERVAL_MS = 10 * 60_000;

export interface HeartbeatDeps {
  /** Default: the system clock. */
  clock?: Clock;
  /** Milliseconds between runs of `loop`, read each time it is scheduled; 0 = off. */
  interval(loop: LoopName): number;
  /** core.agent.max_context_size. */
  maxContextSize(): number;
  runJob: RunJob;
  selfTask: SelfTask;
  /** memory.db, for the merge loop's markers. */
  db: DB;
  pipeline: { tick(): Promise<PipelineSummary> };
  context: WindowPort;
  docs: DocsPort;
  graph: GraphCommit & MergeGraph & ReviewGraph;
  index: NearestIndex;
  /** Time zone of day names in the graph (core.agent.timezone); default the process's. */
  timeZone?: string;
  log?: DistillLog;
}

export class HeartbeatError extends HomeAgentError {}

export class Heartbeat {
  private readonly clock: Clock;
  private readonly markers: NoMergeMarkers;
  private readonly cursor: MergeCursor = { offset: 0 };
  private readonly timers = new Map<HeartbeatTask, { handle: unknown; at: number }>();
  private readonly running = new Map<HeartbeatTask, Promise<string>>();
  private readonly ticks = new Set<Promise<void>>();
  private started = false;

  constructor(private readonly deps: HeartbeatDeps) {
    this.clock = deps.clock ?? systemClock;
    this.markers = new NoMergeMarkers(deps.db);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const task of [...LOOPS, "pipeline"] as const) this.schedule(task);
  }

  /** Stops the timers and waits for runs in progress. */
  async stop(): Promise<void> {
    this.started = false;
    for (const t of this.timers.values()) this.clock.clearTimer(t.handle);
    this.timers.clear();
    await this.idle();
  }

  /** Restarts every timer from now with the current intervals (after a settings change). */
  reschedule(): void {
    if (!this.started) return;
    for (const [task, t] of this.timers) {
      this.clock.clearTimer(t.handle);
      this.timers.delete(task);
    }
    for (const task of [...LOOPS, "pipeline"] as const) if (!this.running.has(task)) this.schedule(task);
  }

  /** When `task` fires next (clock ms), or null when it is off or running. */
  nextRun(task: HeartbeatTask): number | null {
    return this.timers.get(task)?.at ?? null;
  }

  /** Runs `task` now and resolves with its summary; joins a run already in progress. */
  run(task: string): Promise<string> {
    if (!isTask(task)) {
      return Promise.reject(
        new HeartbeatError({
          code: "memory_unknown_loop",
          message: `unknown memory loop "${task}": use one of ${[...LOOPS, "pipeline"].join(", ")}`,
        }),
      );
    }
    const current = this.running.get(task);
    if (current) return current;
    const run = this.body(task).finally(() => this.running.delete(task));
    this.running.set(task, run);
    return run;
  }

  /** Resolves when no run and no tick is in progress (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0 || this.ticks.size > 0) {
      await Promise.allSettled([...this.running.values(), ...this.ticks]);
    }
  }

  private body(task: HeartbeatTask): Promise<string> {
    const d = this.deps;
    switch (task) {
      case "pipeline":
        return d.pipeline
          .tick()
          .then(
            (p) =>
              `pipeline: ${p.distilled} lines → ${p.triples} triples (${p.failed} failed, ${p.pending} waiting, ${p.rejected} skipped as removed by the user)`,
          );
      case "distill":
        return runDistillLoop({ ...d, prepare: d.index.prepare?.bind(d.index) });
      case "archive":
        return runArchiveLoop({ ...d, now: () => this.clock.now() });
      case "merge":
        return runMergeLoop({ ...d, markers: this.markers }, this.cursor);
      case "review":
        return runReviewLoop(d);
    }
  }

  private schedule(task: HeartbeatTask): void {
    if (!this.started) return;
    const ms = this.intervalOf(task);
    if (!(ms > 0)) return;
    const handle = this.clock.setTimer(() => this.fire(task), ms);
    this.timers.set(task, { handle, at: this.clock.now() + ms });
  }

  private intervalOf(task: HeartbeatTask): number {
    if (task === "pipeline") return PIPELINE_INTERVAL_MS;
    try {
      return this.deps.interval(task);
    } catch (err) {
      this.deps.log?.warn(`${task} loop: cannot read its interval, loop off until rescheduled: ${errorMessage(err)}`);
      return 0;
    }
  }

  private fire(task: HeartbeatTask): void {
    this.timers.delete(task);
    if (!this.started) return;
    if (this.running.has(task)) {
      this.deps.log?.info(`${task} loop: still running, this tick is skipped`);
      this.schedule(task);
      return;
    }
    const tick = this.run(task)
      .then(
        (summary) => this.deps.log?.info(summary),
        (err) => this.deps.log?.warn(`${task} loop failed, retried next tick: ${errorMessage(err)}`),
      )
      .then(() => {
        this.ticks.delete(tick);
        this.schedule(task);
      });
    this.ticks.add(tick);
  }
}

function isTask(name: string): name is HeartbeatTask {
  return name === "pipeline" || (LOOPS as readonly string[]).includes(name);
}
