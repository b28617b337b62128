/**
 * Built-in `timer` plugin: reminders and recurring timers the agent sets with timer_set, listed with
 * timer_list and cancelled with timer_cancel (the original's timer, §11). They live in SQLite, so they
 * survive restarts: one that came due while the daemon was down fires once at start and says how late it
 * is; a recurring one resumes at its next slot without firing for every slot it missed. Firing sends
 * `⏰ <message>` to the channel that set it (delivered at once, or kept in that channel's inbox), then, with
 * plugin.timer.follow_up on, starts a NoMemory turn so the agent can act on it.
 */
import { join } from "node:path";
import { definePlugin, forgetMatcher, type Plugin, type PluginSDK } from "@homeagent/sdk";
import { TIMER_SETTINGS } from "./settings.js";
import { type TimerRow, TimerStore } from "./store.js";
import { formatLocal, nextCron, parseAt, parseIn, WhenError } from "./when.js";

/** Wall-clock time and one timer, injectable so tests move time by hand. */
export interface TimerClock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

const systemClock: TimerClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The longest wait between checks: a change of core.agent.timezone reaches recurring timers within it. */
const MAX_WAIT_MS = 60_000;
/** Later than this is worth saying ("3 min late: homed was not running"). */
const LATE_MS = 60_000;
/** 100 timers of this length list well within a tool result's 100,000 characters. */
const MAX_MESSAGE_CHARS = 500;
const DAY_MS = 86_400_000;

export interface TimerPluginOptions {
  clock?: TimerClock;
}

export function createTimerPlugin(opts: TimerPluginOptions = {}): Plugin {
  const clock = opts.clock ?? systemClock;
  /** What one start holds, so a check still running from an earlier start can touch nothing of this one. */
  let run: { timers: TimerStore; stopped: boolean; handle: unknown } | null = null;

  const start = (sdk: PluginSDK): void => {
    sdk.settings.define(TIMER_SETTINGS);
    const timers = new TimerStore(join(sdk.dataDir, "timers.db"));
    const state = { timers, stopped: false, handle: undefined as unknown };
    run = state;
    let zone = userZone(sdk);
    /** A check is running: it arms the next one when done (two at once would fire a timer twice). */
    let checking = false;
    const setting = (key: string) => Number(sdk.settings.get(key));

    /** Re-reads the zone: recurring timers follow a change of core.agent.timezone. */
    const refreshZone = (): void => {
      const current = userZone(sdk);
      if (current === zone) return;
      zone = current;
      const now = clock.now();
      for (const t of timers.all()) if (t.cron) timers.reschedule(t.id, nextCron(t.cron, zone, now));
      sdk.log.info(`timer: time zone is now ${zone}; recurring timers rescheduled`);
    };

    const fire = async (t: TimerRow, now: number): Promise<void> => {
      const late = now - t.due_at;
      // Written before it is delivered: a crash in between loses a delivery, never repeats one forever.
      if (t.cron) timers.reschedule(t.id, nextCron(t.cron, zone, now));
      else timers.remove(t.id);
      const lateNote =
        late > LATE_MS
          ? ` (due ${formatLocal(t.due_at, zone)}, ${lateText(late)} late: homed was not running or was busy)`
          : "";
      await deliver(t, `⏰ ${t.message}${lateNote}`);
      if (sdk.settings.get("follow_up") === "true") {
        const prompt = `A timer you set fired: "${t.message}"${lateNote}. Act on it if there is something to do; otherwise say nothing more than the reminder.`;
        sdk.injectInput("timer", "timer", prompt, { noMemory: true, outputChannel: t.channel });
      }
    };

    /**
     * To the channel that set it; one that is gone (a plugin's channel, or a turn on a channel no one
     * delivers to, such as the OpenAI endpoint's) falls back to the dashboard's, then the terminal's, where it
     * is shown or kept in the inbox.
     */
    const deliver = async (t: TimerRow, text: string): Promise<void> => {
      try {
        const sent = await sdk.send(t.channel, text, { kind: "reminder", fallback: true });
        sdk.log.info(`timer ${t.id} fired on ${sent.channel}: ${sent.delivered ? "delivered" : "kept in the inbox"}`);
      } catch (err) {
        sdk.log.warn(`timer ${t.id} could not be delivered to "${t.channel}" nor elsewhere: ${(err as Error).message}`);
      }
    };

    const check = async (): Promise<void> => {
      state.handle = undefined;
      if (state.stopped) return;
      checking = true;
      try {
        refreshZone();
        const now = clock.now();
        // One at a time, each claimed (removed or moved on) before it is delivered.
        for (let t = timers.due(now)[0]; t && !state.stopped; t = timers.due(now)[0]) await fire(t, now);
      } catch (err) {
        sdk.log.error(`timer: checking timers failed: ${(err as Error).message}`);
      } finally {
        checking = false;
      }
      arm();
    };

    const arm = (): void => {
      if (state.stopped) return;
      if (checking) return;
      if (state.handle !== undefined) clock.clearTimer(state.handle);
      const next = timers.nextDue();
      const wait = next === undefined ? MAX_WAIT_MS : Math.min(Math.max(next - clock.now(), 0), MAX_WAIT_MS);
      state.handle = clock.setTimer(() => void check(), wait);
    };

    sdk.registerTool(
      {
        name: "timer_set",
        description:
          "Set a reminder: exactly one of `in` (5s, 2m, 1h30m, 2d), `at` (a local date-time such as 2026-12-24 18:00, a time of day such as 18:00, or ISO 8601 with an offset) or `cron` (five fields, e.g. '0 9 * * 1-5' for weekdays at 09:00), in the user's time zone. When it fires, `message` is delivered to the user on this channel, prefixed with ⏰.",
        parameters: {
          type: "object",
          properties: {
            in: { type: "string", description: "Delay from now: 5s, 2m, 1h30m, 2d." },
            at: { type: "string", description: "When: 2026-12-24 18:00, 18:00, or 2026-12-24T18:00+08:00." },
            cron: { type: "string", description: "Recurring: five cron fields, e.g. '0 9 * * *'." },
            message: { type: "string", description: "What to remind the user of." },
          },
          required: ["message"],
        },
      },
      (args, ctx) => {
        refreshZone();
        const message = String(args.message ?? "").trim();
        if (!message) return "error: timer_set needs a message";
        if (message.length > MAX_MESSAGE_CHARS) return `error: the message is at most ${MAX_MESSAGE_CHARS} characters`;
        const given = (["in", "at", "cron"] as const).filter((k) => typeof args[k] === "string" && args[k] !== "");
        if (given.length !== 1) return "error: give exactly one of in, at or cron";
        if (timers.count() >= setting("max_timers")) {
          return `error: ${setting("max_timers")} timers are set already (plugin.timer.max_timers); cancel one with timer_cancel first`;
        }
        const now = clock.now();
        const kind = given[0];
        const value = String(args[kind]);
        let dueAt: number;
        try {
          dueAt =
            kind === "in"
              ? now + parseIn(value)
              : kind === "at"
                ? parseAt(value, zone, now)
                : nextCron(value, zone, now);
        } catch (err) {
          if (err instanceof WhenError) return `error: ${err.message}`;
          throw err;
        }
        if (kind !== "cron") {
          if (dueAt <= now) return `error: ${formatLocal(dueAt, zone)} (${zone}) is in the past; give a time to come`;
          const max = setting("max_duration") * DAY_MS;
          if (dueAt - now > max) {
            return `error: a reminder can be set at most ${setting("max_duration")} days ahead (plugin.timer.max_duration); use cron for a recurring one`;
          }
        }
        const row = timers.add({
          // Delivered where the turn that set it came from (cli, webui, …).
          channel: ctx.channel,
          message,
          cron: kind === "cron" ? value.trim() : "",
          due_at: dueAt,
          created_at: now,
        });
        arm();
        const repeat = row.cron ? `, then on "${row.cron}"` : "";
        return `timer ${row.id} set for ${formatLocal(dueAt, zone)} (${zone}${repeat}), in ${lateText(dueAt - now)}: "${message}"`;
      },
    );

    sdk.registerTool(
      {
        name: "timer_list",
        description:
          "List the timers that are set, as JSON: id, next (when it fires next, in the user's time zone), cron (for a recurring one), message, channel.",
        parameters: { type: "object", properties: {} },
        noMemory: true,
      },
      () => {
        refreshZone();
        return timers.all().map((t) => ({
          id: t.id,
          next: formatLocal(t.due_at, zone),
          nextAt: t.due_at,
          zone,
          ...(t.cron ? { cron: t.cron } : {}),
          message: t.message,
          channel: t.channel,
        }));
      },
    );

    sdk.registerTool(
      {
        name: "timer_cancel",
        description: "Cancel a timer by the id timer_set or timer_list gave.",
        parameters: {
          type: "object",
          properties: { id: { type: "integer", description: "The timer's id." } },
          required: ["id"],
        },
      },
      (args) => {
        const id = Number(args.id);
        const removed = Number.isInteger(id) && timers.remove(id);
        if (removed) arm();
        return removed ? `timer ${id} cancelled` : `error: no timer ${String(args.id)}; timer_list shows the ids`;
      },
    );

    sdk.onForget(async ({ terms, confirm }) => {
      const matches = forgetMatcher(terms);
      const hits = timers.all().filter((t) => matches(t.message));
      if (confirm) {
        for (const t of hits) timers.remove(t.id);
        timers.checkpoint();
        arm();
      }
      return { counts: { timers: hits.length }, samples: hits.slice(0, 3).map((t) => t.message) };
    });

    // Timers that came due while the daemon was down fire now, once each.
    void check();
  };

  return definePlugin({
    name: "timer",
    start,
    stop: () => {
      if (!run) return;
      run.stopped = true;
      if (run.handle !== undefined) clock.clearTimer(run.handle);
      run.timers.close();
      run = null;
    },
  });
}

/** core.agent.timezone, or the system's zone. */
function userZone(sdk: PluginSDK): string {
  const configured = sdk.config.list("core.agent.timezone").find((e) => e.key === "core.agent.timezone")?.value;
  if (configured) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: configured });
      return configured;
    } catch {
      // An unknown zone is refused when written; one set before a runtime change falls back like the kernel.
    }
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** 90 s → "2 min", 5400 s → "1 h 30 min". */
function lateText(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return `${Math.max(1, Math.round(ms / 1000))} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours < 48) return rest ? `${hours} h ${rest} min` : `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}
