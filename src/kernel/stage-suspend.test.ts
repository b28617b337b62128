/**
 * A plugin whose stage handlers stop answering used to slow every turn forever: each stage waited the full
 * deadline for it, on every turn. A handler that failed (timed out, threw, answered a refused patch) 3 of
 * its last 5 runs now suspends its plugin: all of the plugin's handlers are skipped until it registers anew
 * (a restart or reload); one that answers now and then between its timeouts is suspended too, one that
 * fails once in a while is not. A critical plugin fails closed: its suspended handlers refuse at once
 * instead of being skipped. Deadlines run on a clock the test moves.
 */
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { FakeClock } from "../../test/fixtures/fake-clock.js";
import { startAgent } from "../../test/fixtures/kernel-harness.js";
import { FAILURES_TO_SUSPEND, RECENT_RUNS, type Suspension } from "./stage-suspend.js";
import { newStageContext, StageHost } from "./stages.js";

const TIMEOUT = 100;
let clock: FakeClock;
let host: StageHost;
let suspensions: Suspension[];
let calls: string[];

beforeEach(() => {
  clock = new FakeClock();
  suspensions = [];
  calls = [];
  host = new StageHost({ timeoutMs: () => TIMEOUT, clock, onSuspend: (s) => void suspensions.push(s) });
});

const ctx = () => newStageContext({ requestId: "r", source: "t", channel: "t", rawMessage: "x" });
const never = () => new Promise<void>(() => {});

/** One turn of the event loop: handlers that answer at once have answered. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

/** One run of `stage` whose deadline passes on the fake clock; resolves with the context. */
async function runPastDeadline(stage: Parameters<StageHost["run"]>[0] = "pre_action") {
  const c = ctx();
  const done = host.run(stage, c);
  await settled();
  clock.advance(TIMEOUT);
  await done;
  return c;
}

test("3 timeouts in a row suspend the plugin: its handlers are skipped at once, the others still run", async () => {
  host.register("deaf", "pre_action", () => {
    calls.push("deaf pre_action");
    return never();
  });
  host.register("deaf", "on_input", () => void calls.push("deaf on_input"));
  host.register("other", "pre_action", () => void calls.push("other"));
  assert.deepEqual([FAILURES_TO_SUSPEND, RECENT_RUNS], [3, 5]);
  for (let i = 1; i <= 3; i++) {
    const c = await runPastDeadline();
    assert.match(c.errors.at(-1)?.message ?? "", /timed out after 100 ms/);
    assert.equal(suspensions.length, i === 3 ? 1 : 0, `after run ${i}`);
  }
  assert.equal(suspensions[0].plugin, "deaf");
  assert.equal(suspensions[0].stage, "pre_action");
  assert.match(suspensions[0].reason, /pre_action handler failed 3 of its last 3 runs \(last: timed out after 100 ms/);
  assert.match(suspensions[0].reason, /skipped until it restarts or is reloaded/);
  assert.deepEqual(host.suspension("deaf"), suspensions[0]);

  calls = [];
  // No clock movement: a stage that waited for the deaf handler would never finish.
  const c = ctx();
  await host.run("pre_action", c);
  await host.run("on_input", c);
  assert.deepEqual(calls, ["other"], "neither of deaf's handlers ran, the other plugin's did");
  assert.deepEqual(c.errors, []);
});

test("failures older than the last 5 runs no longer count; errors count like timeouts", async () => {
  const script = ["throw", "throw", "ok", "ok", "ok", "ok", "throw", "ok", "throw", "throw"];
  host.register("flaky", "post_action", () => {
    if (script.shift() === "throw") throw new Error("boom");
  });
  for (let i = 0; i < 9; i++) await host.run("post_action", ctx());
  assert.equal(suspensions.length, 0, "never 3 failures among 5 runs in a row");
  assert.equal(host.suspension("flaky"), undefined);
  await host.run("post_action", ctx());
  assert.equal(suspensions.length, 1);
  assert.match(suspensions[0].reason, /post_action handler failed 3 of its last 5 runs \(last: boom\)/);
});

test("a handler that times out twice and answers once, forever, is suspended; one failing 1 run in 3 is not", async () => {
  let flappy = 0;
  host.register("flappy", "pre_action", () => (++flappy % 3 === 0 ? undefined : never()));
  let rare = 0;
  host.register("rare", "pre_action", () => {
    if (++rare % 3 === 1) throw new Error("now and then");
  });
  for (let i = 0; i < 4; i++) await runPastDeadline();
  assert.deepEqual(
    suspensions.map((s) => s.plugin),
    ["flappy"],
  );
  assert.match(suspensions[0].reason, /pre_action handler failed 3 of its last 4 runs \(last: timed out/);
  for (let i = 0; i < 30; i++) await host.run("pre_action", ctx());
  assert.equal(flappy, 4, "skipped since: no stage waits for it any more");
  assert.equal(rare, 34);
  assert.equal(host.suspension("rare"), undefined);
});

test("a failure of a handler removed while it ran does not count against the plugin's new registration", async () => {
  host.register("p", "pre_action", never);
  for (let i = 0; i < 2; i++) await runPastDeadline();
  const c = ctx();
  const third = host.run("pre_action", c);
  await settled();
  // Meanwhile the plugin is disabled and enabled again: a fresh, healthy handler.
  host.unregisterPlugin("p");
  host.register("p", "pre_action", () => void calls.push("fresh"));
  clock.advance(TIMEOUT);
  await third;
  assert.match(c.errors[0]?.message ?? "", /timed out/, "the old run's failure is still reported");
  assert.deepEqual(suspensions, []);
  assert.equal(host.suspension("p"), undefined);
  await host.run("pre_action", ctx());
  assert.deepEqual(calls, ["fresh"]);
});

test("each handler has its own run: one that always fails suspends the plugin though another succeeds", async () => {
  host.register("half", "pre_action", () => {
    throw new Error("broken");
  });
  host.register("half", "pre_action", () => void calls.push("half ok"));
  for (let i = 0; i < 3; i++) await host.run("pre_action", ctx());
  assert.equal(calls.length, 3);
  assert.equal(suspensions.length, 1);
  await host.run("pre_action", ctx());
  assert.equal(calls.length, 3, "the working handler of the suspended plugin is skipped too");
});

test("a turn stopped while a handler runs is not that handler's failure", async () => {
  host.register("slow", "pre_action", never);
  for (let i = 0; i < 4; i++) {
    const stop = new AbortController();
    const done = host.run("pre_action", ctx(), { stop: stop.signal });
    stop.abort(new Error("cancelled"));
    await done;
  }
  assert.deepEqual(suspensions, []);
});

test("registering anew (a restart or reload) lifts the suspension, and the count starts over", async () => {
  let answer = false;
  const handler = async () => {
    if (!answer) await never();
    calls.push("answered");
  };
  host.register("deaf", "pre_action", handler);
  for (let i = 0; i < 3; i++) await runPastDeadline();
  assert.ok(host.suspension("deaf"));
  // What the plugin registry does when a plugin stops: everything of it goes, then it registers again.
  host.unregisterPlugin("deaf");
  assert.equal(host.suspension("deaf"), undefined);
  host.register("deaf", "pre_action", handler);
  for (let i = 0; i < 2; i++) await runPastDeadline();
  assert.equal(host.suspension("deaf"), undefined, "2 failures after the restart: not suspended yet");
  answer = true;
  await host.run("pre_action", ctx());
  assert.deepEqual(calls, ["answered"]);
  assert.equal(suspensions.length, 1);
});

test("a suspended critical plugin fails closed: each of its handlers refuses at once, without running", async () => {
  host.setCritical("guard", true);
  host.register("guard", "before_toolcall", never);
  host.register("guard", "pre_action", () => void calls.push("guard pre_action"));
  for (let i = 0; i < 3; i++) await runPastDeadline("before_toolcall");
  assert.equal(suspensions.length, 1);
  const c = ctx();
  await host.run("pre_action", c);
  assert.deepEqual(calls, []);
  assert.match(
    String(c.response),
    /^refused: plugin "guard" \(critical\) failed in pre_action \(.*3 of its last 3 runs/,
  );
  // A restart of the critical plugin (closed while down, then reopened) lifts it.
  host.closeFor("guard", "restarting");
  host.register("guard", "pre_action", () => void calls.push("guard again"));
  host.reopen("guard");
  const after = ctx();
  await host.run("pre_action", after);
  assert.deepEqual(calls, ["guard again"]);
  assert.equal(after.response, null);
});

test("the agent announces a suspension once: a system event plugin_degraded with the reason", async (t) => {
  const h = startAgent();
  t.after(() => h.close());
  const events: unknown[] = [];
  h.agent.bus.subscribe("system", (e) => void events.push(e.payload));
  h.agent.stages.register("broken", "pre_action", () => {
    throw new Error("no database");
  });
  for (let i = 0; i < 4; i++) {
    h.llm.enqueue({ text: `reply ${i}` });
    assert.equal((await h.agent.injectInputSync("cli", "cli", `turn ${i}`)).content, `reply ${i}`);
  }
  assert.equal(events.length, 1);
  assert.deepEqual(events[0], {
    kind: "plugin_degraded",
    plugin: "broken",
    stage: "pre_action",
    reason: h.agent.stages.suspension("broken")?.reason,
  });
  assert.match(JSON.stringify(events[0]), /pre_action handler failed 3 of its last 3 runs \(last: no database\)/);
});
