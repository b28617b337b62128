/**
 * The timer plugin on the mock SDK with a clock moved by hand: one-time and recurring timers fire and are
 * delivered as "⏰ …" to the channel that set them; they survive a restart (one that came due meanwhile fires
 * once, late, saying so; a recurring one resumes without firing for every missed slot); DST changes and a
 * change of core.agent.timezone move nothing the user did not ask to move; limits and bad input are refused.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { type Plugin, SdkError } from "@homeagent/sdk";
import { createMockSDK, type MockSDK } from "@homeagent/sdk/test";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { createTimerPlugin, type TimerClock } from "./plugin.js";

class HandClock implements TimerClock {
  private timers: Array<{ at: number; fn: () => void }> = [];
  constructor(public t: number) {}
  now = () => this.t;
  setTimer = (fn: () => void, ms: number) => {
    const timer = { at: this.t + ms, fn };
    this.timers.push(timer);
    return timer;
  };
  clearTimer = (handle: unknown) => {
    this.timers = this.timers.filter((x) => x !== handle);
  };
  /** Moves time on, running every timer that comes due on the way, in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
  }
}

const running: Plugin[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) await p.stop();
});

async function start(clock: HandClock, dir: string, zone = "UTC", settings: Record<string, string> = {}) {
  const sdk = createMockSDK({
    pluginName: "timer",
    dataDir: dir,
    settings,
    config: [{ key: "core.agent.timezone", value: zone }],
  });
  const plugin = createTimerPlugin({ clock });
  await plugin.start(sdk);
  running.push(plugin);
  return { sdk, plugin };
}

const set = (sdk: MockSDK, args: Record<string, unknown>, channel = "cli") =>
  sdk.callTool("timer_set", args, { channel }) as Promise<string>;

const UTC = (iso: string) => Date.parse(`${iso}Z`);

/** timer_list's JSON as one line per timer: `id: next (cron "…") — message`. */
async function listed(sdk: MockSDK): Promise<string> {
  const timers = (await sdk.callTool("timer_list")) as Array<{
    id: number;
    next: string;
    cron?: string;
    message: string;
  }>;
  return timers.map((t) => `${t.id}: ${t.next}${t.cron ? ` (cron "${t.cron}")` : ""} — ${t.message}`).join("\n");
}

test("'in 2s' fires once, 2 s later, as ⏰ on the channel that set it", async () => {
  const clock = new HandClock(UTC("2026-12-04T10:00:00"));
  const { sdk } = await start(clock, tempDir("ha-timer-"));
  assert.match(
    await set(sdk, { in: "2s", message: "stretch" }),
    /^timer 1 set for 2026-12-04 10:00:02 \(UTC\), in 2 s/,
  );
  clock.advance(1_999);
  assert.deepEqual(sdk.sent, []);
  clock.advance(1);
  await waitFor(() => sdk.sent.length === 1, "the reminder");
  assert.deepEqual(sdk.sent, [{ channel: "cli", text: "⏰ stretch", kind: "reminder" }]);
  clock.advance(600_000);
  assert.equal(sdk.sent.length, 1, "a one-time timer fires once");
  assert.equal(await listed(sdk), "");
});

test("a timer that came due while the daemon was down fires once at start, saying how late it is", async () => {
  const dir = tempDir("ha-timer-");
  const clock = new HandClock(UTC("2026-12-04T10:00:00"));
  const first = await start(clock, dir);
  await set(first.sdk, { at: "2026-12-04 10:30", message: "call mum" }, "webui");
  await first.plugin.stop();
  running.length = 0;
  clock.t = UTC("2026-12-04T11:15:00");
  const { sdk } = await start(clock, dir);
  await waitFor(() => sdk.sent.length === 1, "the late reminder");
  assert.equal(sdk.sent[0].channel, "webui");
  assert.equal(sdk.sent[0].text, "⏰ call mum (due 2026-12-04 10:30, 45 min late: homed was not running or was busy)");
  clock.advance(3_600_000);
  assert.equal(sdk.sent.length, 1);
});

test("a recurring timer resumes after a restart without firing for every missed slot", async () => {
  const dir = tempDir("ha-timer-");
  const clock = new HandClock(UTC("2026-12-04T08:00:00"));
  const first = await start(clock, dir);
  assert.match(
    await set(first.sdk, { cron: "0 9 * * *", message: "stand-up" }),
    /2026-12-04 09:00 \(UTC, then on "0 9 \* \* \*"\)/,
  );
  clock.advance(3_600_000);
  await waitFor(() => first.sdk.sent.length === 1, "the first stand-up");
  await first.plugin.stop();
  running.length = 0;
  clock.t = UTC("2026-12-07T12:00:00");
  const { sdk } = await start(clock, dir);
  await waitFor(() => sdk.sent.length === 1, "one late stand-up");
  assert.match(sdk.sent[0].text, /^⏰ stand-up \(due 2026-12-05 09:00, 2 days late/);
  assert.match(await listed(sdk), /^1: 2026-12-08 09:00 \(cron "0 9 \* \* \*"\) — stand-up$/);
  clock.advance(21 * 3_600_000);
  await waitFor(() => sdk.sent.length === 2, "the next stand-up");
  assert.equal(sdk.sent[1].text, "⏰ stand-up");
});

test("DST: a daily 02:30 in Paris fires at 03:00 on the night clocks skip 02:xx, and a one-time 02:30 is read sanely", async () => {
  const clock = new HandClock(UTC("2026-03-28T12:00:00"));
  const { sdk } = await start(clock, tempDir("ha-timer-"), "Europe/Paris", { max_duration: "366" });
  await set(sdk, { cron: "30 2 * * *", message: "backup" });
  clock.advance(UTC("2026-03-29T00:59:59") - clock.t);
  assert.equal(sdk.sent.length, 0);
  clock.advance(1_000);
  await waitFor(() => sdk.sent.length === 1, "the backup on the DST night");
  assert.match(await listed(sdk), /2026-03-30 02:30/, "then 02:30 again");
  // Skipped wall time: the same time after the jump; a time shown twice (autumn): its first occurrence.
  assert.match(await set(sdk, { at: "2026-03-29 02:30", message: "x" }), /set for 2026-03-29 03:30 \(Europe\/Paris\)/);
  assert.match(await set(sdk, { at: "2026-10-25 02:30", message: "autumn" }), /2026-10-25 02:30 \(Europe\/Paris\)/);
  const list = await listed(sdk);
  assert.match(list, /autumn/);
  clock.advance(UTC("2026-10-25T00:30:00") - clock.t);
  // The check a timer runs is async and arms the next one when done: run what it armed for now.
  await waitFor(() => {
    clock.advance(0);
    return sdk.sent.some((s) => s.text === "⏰ autumn");
  }, "the first 02:30 of the autumn night");
});

test("a change of core.agent.timezone moves recurring timers to the new zone's wall clock", async () => {
  const clock = new HandClock(UTC("2026-12-04T00:00:00"));
  const { sdk } = await start(clock, tempDir("ha-timer-"), "Asia/Shanghai");
  await set(sdk, { cron: "0 9 * * *", message: "tea" });
  await set(sdk, { at: "2026-12-05 20:00", message: "fixed instant" });
  assert.match(await listed(sdk), /^\d+: 2026-12-04 09:00 \(cron/m);
  sdk.config.set("core.agent.timezone", "Europe/Paris");
  const list = await listed(sdk);
  assert.match(list, /: 2026-12-04 09:00 \(cron "0 9 \* \* \*"\) — tea/, "09:00 in Paris now");
  assert.match(list, /: 2026-12-05 13:00 — fixed instant/, "a one-time timer keeps its instant");
  clock.advance(UTC("2026-12-04T08:00:00") - clock.t);
  await waitFor(() => sdk.sent.length === 1, "tea at 09:00 Paris");
  assert.equal(sdk.sent[0].text, "⏰ tea");
});

test("limits and bad input are refused with what to write instead", async () => {
  const clock = new HandClock(UTC("2026-12-04T10:00:00"));
  const { sdk } = await start(clock, tempDir("ha-timer-"), "UTC", { max_timers: "2", max_duration: "30" });
  assert.match(await set(sdk, { in: "soon", message: "x" }), /error: "in" is a duration such as 5s/);
  assert.match(await set(sdk, { at: "tomorrow", message: "x" }), /error: "at" is a local date-time/);
  assert.match(await set(sdk, { cron: "* * * *", message: "x" }), /error: "cron" has five fields/);
  assert.match(await set(sdk, { cron: "99 * * * *", message: "x" }), /error: "cron" "99 \* \* \* \*" is not valid/);
  assert.match(await set(sdk, { in: "5m", at: "12:00", message: "x" }), /exactly one of in, at or cron/);
  assert.match(await set(sdk, { in: "31d", message: "x" }), /at most 30 days ahead \(plugin.timer.max_duration\)/);
  assert.match(await set(sdk, { at: "2026-12-04T09:00:00Z", message: "x" }), /is in the past/);
  assert.match(await set(sdk, { in: "5m", message: "" }), /needs a message/);
  await set(sdk, { in: "5m", message: "a" });
  await set(sdk, { at: "11:00", message: "b" });
  assert.match(await set(sdk, { in: "5m", message: "c" }), /2 timers are set already \(plugin.timer.max_timers\)/);
  assert.equal(await sdk.callTool("timer_cancel", { id: 1 }), "timer 1 cancelled");
  assert.match(String(await sdk.callTool("timer_cancel", { id: 1 })), /no timer 1/);
  assert.match(await listed(sdk), /^2: 2026-12-04 11:00 — b$/);
});

test("forgetting removes the reminders that mention the text; follow_up starts a NoMemory turn", async () => {
  const dir = tempDir("ha-timer-");
  const clock = new HandClock(UTC("2026-12-04T10:00:00"));
  const { sdk } = await start(clock, dir, "UTC", { follow_up: "true" });
  await set(sdk, { in: "1h", message: "renew passport 4711" });
  await set(sdk, { in: "2s", message: "stretch" });
  const handler = sdk.forgetHandler;
  assert.ok(handler);
  assert.deepEqual((await handler({ terms: ["passport 4711"], confirm: false })).counts, { timers: 1 });
  assert.deepEqual((await handler({ terms: ["passport 4711"], confirm: true })).counts, { timers: 1 });
  assert.doesNotMatch(await listed(sdk), /passport/);
  clock.advance(2_000);
  await waitFor(() => sdk.inputs.length === 1, "the follow-up turn");
  assert.equal(sdk.inputs[0].source, "timer");
  assert.equal(sdk.inputs[0].opts?.noMemory, true);
  assert.equal(sdk.inputs[0].opts?.outputChannel, "cli");
  assert.match(sdk.inputs[0].text, /A timer you set fired: "stretch"/);
});

test("a timer set while others are being delivered fires each of them once", async () => {
  const clock = new HandClock(UTC("2026-12-04T10:00:00"));
  const { sdk } = await start(clock, tempDir("ha-timer-"));
  let release = (): void => {};
  const slow = new Promise<void>((resolve) => {
    release = resolve;
  });
  const shown: string[] = [];
  sdk.registerOutputChannel("slow", ["text"], "a channel that takes its time", async (msg) => {
    await slow;
    shown.push(msg.payload);
    return "shown";
  });
  for (const m of ["A", "B", "C"]) await set(sdk, { in: "1s", message: m }, "slow");
  clock.advance(1_000);
  await waitFor(() => sdk.sent.length === 1, "the first delivery to start");
  // The model sets another timer while the first is still being delivered: that re-arms the check.
  await set(sdk, { in: "1h", message: "later" }, "slow");
  clock.advance(0);
  release();
  await waitFor(() => shown.length === 3, "all three");
  clock.advance(0);
  assert.deepEqual(shown, ["⏰ A", "⏰ B", "⏰ C"]);
  assert.equal(sdk.sent.length, 3);
});

test("a reminder for a channel that is gone goes to the dashboard's instead of being lost", async () => {
  const clock = new HandClock(UTC("2026-12-04T10:00:00"));
  const { sdk } = await start(clock, tempDir("ha-timer-"));
  sdk.registerOutputChannel("gone", ["text"], "a channel whose plugin stopped", () => {
    throw new SdkError({ code: "channel_not_found", message: 'no output channel "gone"' });
  });
  await set(sdk, { in: "1s", message: "still here" }, "gone");
  clock.advance(1_000);
  await waitFor(() => sdk.sent.length === 2, "the fallback");
  assert.deepEqual(
    sdk.sent.map((s) => s.channel),
    ["gone", "webui"],
  );
});
