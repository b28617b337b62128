/**
 * Suspending the stage handlers of a plugin that keeps failing. Every handler has a deadline, but a plugin
 * whose handlers stopped answering still made every stage of every turn wait that deadline for it, forever
 * (seven stages of 5 s: a tool turn took 40 s), while nothing said so. So each handler's failures in a row
 * are counted (a success starts the count over); at MAX_FAILURES_IN_A_ROW its plugin is suspended, and
 * StageHost skips all of that plugin's handlers until the plugin registers anew (it restarted or was
 * reloaded). A suspension is reported once, with its reason, for the plugin's status and a `system` event.
 */
import type { Stage } from "@homeagent/sdk";

/** Failures in a row (timeouts, errors, refused patches) of one handler that suspend its plugin. */
export const MAX_FAILURES_IN_A_ROW = 3;

export interface Suspension {
  plugin: string;
  /** The stage of the handler whose failures suspended it. */
  stage: Stage;
  /** Why, and what lifts it: for the plugin's status, the log and the `system` event. */
  reason: string;
}

export class HandlerStreaks {
  /** Failures in a row, by handler (a registration object; a new registration starts from 0). */
  private readonly streaks = new WeakMap<object, number>();
  private readonly suspended = new Map<string, Suspension>();

  /** `handler` did its job: its run of failures ends. */
  succeeded(handler: object): void {
    this.streaks.delete(handler);
  }

  /**
   * `handler` of `plugin` failed in `stage` with `message`. Returns the suspension this failure caused, if
   * it caused one (once per suspension).
   */
  failed(handler: object, plugin: string, stage: Stage, message: string): Suspension | undefined {
    const streak = (this.streaks.get(handler) ?? 0) + 1;
    this.streaks.set(handler, streak);
    if (streak < MAX_FAILURES_IN_A_ROW || this.suspended.has(plugin)) return undefined;
    const suspension: Suspension = {
      plugin,
      stage,
      reason: `its ${stage} handler failed ${streak} times in a row (last: ${message}); all its stage handlers are skipped until it restarts or is reloaded (/plugins reload ${plugin}; a built-in: /plugins disable ${plugin}, then /plugins enable ${plugin})`,
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
}
