/**
 * Suspending the stage handlers of a plugin that keeps failing. Every handler has a deadline, but a plugin
 * whose handlers stopped answering still made every stage of every turn wait that deadline for it, forever
 * (seven stages of 5 s: a tool turn took 40 s), while nothing said so. Counting failures in a row was not
 * enough: a handler that timed out twice and answered once, forever, was never suspended and cost 2 of 3
 * stage runs the full deadline. So the rule is: when FAILURES_TO_SUSPEND of a handler's last RECENT_RUNS runs
 * failed, its plugin is suspended, and StageHost skips all of that plugin's handlers until the plugin
 * registers anew (it restarted or was reloaded). A handler that fails now and then (1 run in 3) never is.
 * A suspension is reported once, with its reason, for the plugin's status and a `system` event.
 */
import type { Stage } from "@homeagent/sdk";

/** Failures (timeouts, errors, refused patches) among a handler's last RECENT_RUNS runs that suspend its plugin. */
export const FAILURES_TO_SUSPEND = 3;
/** How many of a handler's latest runs count. */
export const RECENT_RUNS = 5;

export interface Suspension {
  plugin: string;
  /** The stage of the handler whose failures suspended it. */
  stage: Stage;
  /** Why, and what lifts it: for the plugin's status, the log and the `system` event. */
  reason: string;
}

export class HandlerRecords {
  /** The outcomes of each handler's latest runs, oldest first, true = failed (a new registration has none). */
  private readonly recent = new WeakMap<object, boolean[]>();
  private readonly suspended = new Map<string, Suspension>();

  /** `handler` did its job. */
  succeeded(handler: object): void {
    this.record(handler, false);
  }

  /**
   * `handler` of `plugin` failed in `stage` with `message`. Returns the suspension this failure caused, if
   * it caused one (once per suspension).
   */
  failed(handler: object, plugin: string, stage: Stage, message: string): Suspension | undefined {
    const runs = this.record(handler, true);
    const failures = runs.filter((failed) => failed).length;
    if (failures < FAILURES_TO_SUSPEND || this.suspended.has(plugin)) return undefined;
    const suspension: Suspension = {
      plugin,
      stage,
      reason: `its ${stage} handler failed ${failures} of its last ${runs.length} runs (last: ${message}); all its stage handlers are skipped until it restarts or is reloaded (/plugins reload ${plugin}; a built-in: /plugins disable ${plugin}, then /plugins enable ${plugin})`,
    };
    this.suspended.set(plugin, suspension);
    return suspension;
  }

  get(plugin: string): Suspension | undefined {
    return this.suspended.get(plugin);
  }

  /** The plugin registers anew: its handlers run again. */
  lift(plugin: string): void {
    this.suspended.delete(plugin);
  }

  /** `handler`'s latest runs, `failed` the newest. */
  private record(handler: object, failed: boolean): boolean[] {
    const runs = [...(this.recent.get(handler) ?? []), failed].slice(-RECENT_RUNS);
    this.recent.set(handler, runs);
    return runs;
  }
}
