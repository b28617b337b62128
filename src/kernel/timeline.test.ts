/**
 * The context window as the next prompt sees it. Defect 12: a failed turn's error used to be stored as
 * the agent's own words. Defect 13: rows showed local time of day only while "Current time" was UTC.
 * Defect 14: the window held max_context_size + 1 events after every turn.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { formatInZone } from "../util/time-zone.js";

let h: Harness;
const tz = process.env.TZ;
beforeEach(() => {
  h = startAgent();
});
afterEach(async () => {
  await h.close();
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

const timelineOf = (i: number) =>
  h.llm.requests[i].messages.find((m) => m.content.startsWith("【对话时序"))?.content ?? "";
const systemOf = (i: number) => h.llm.requests[i].messages[0].content;

test("a turn whose LLM call failed is not written as the agent's reply; its input is marked unanswered", async () => {
  h.llm.enqueue({ error: new Error("all 1 LLM sources failed: a: HTTP 500") }, { text: "hello again" });
  const failed = await h.agent.injectInputSync("cli", "cli", "first question");
  assert.match(failed.error ?? "", /all 1 LLM sources failed/);
  await h.agent.injectInputSync("cli", "cli", "second");
  const timeline = timelineOf(1);
  assert.doesNotMatch(timeline, /LLM sources failed/);
  assert.doesNotMatch(timeline, /you:/);
  assert.match(timeline, /cli: first question \(not answered: the reply failed with an error\)$/m);
});

test("a cancelled turn is not written as the agent's reply either", async () => {
  h.llm.enqueue({ text: "slow", delayMs: 5000 }, { text: "next" });
  const cancel = new AbortController();
  const pending = h.agent.injectInputSync("cli", "cli", "long job", { signal: cancel.signal });
  await waitFor(() => h.llm.requests.length === 1, "the first LLM call");
  cancel.abort(new Error("cancelled: the client went away"));
  await pending;
  await h.agent.injectInputSync("cli", "cli", "are you there?");
  const timeline = timelineOf(1);
  assert.doesNotMatch(timeline, /you:|client went away/);
  assert.match(timeline, /cli: long job \(not answered: cancelled before a reply\)$/m);
});

test("timeline rows carry date and time in the same zone as Current time (TZ=Asia/Shanghai)", async () => {
  process.env.TZ = "Asia/Shanghai";
  const now = Date.now();
  const sixDaysAgo = now - 6 * 86_400_000;
  const minuteAgo = now - 60_000;
  await h.context.append({ ts: sixDaysAgo, kind: "user", source: "cli", channel: "cli", input: "old question" });
  await h.context.append({ ts: minuteAgo, kind: "user", source: "cli", channel: "cli", input: "new question" });
  h.llm.enqueue({ text: "ok" }, { text: "ok" });
  await h.agent.injectInputSync("cli", "cli", "when?");

  const current = /Current time: (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) \+08:00 \(Asia\/Shanghai\)\./.exec(systemOf(0));
  assert.ok(current, `Current time line in: ${systemOf(0)}`);
  const rows = [...timelineOf(0).matchAll(/^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\] cli: (.*)$/gm)];
  assert.deepEqual(
    rows.map((r) => [r[1], r[2]]),
    [
      [formatInZone(sixDaysAgo, "Asia/Shanghai"), "old question"],
      [formatInZone(minuteAgo, "Asia/Shanghai"), "new question"],
    ],
  );
  assert.ok(rows[0][1] < rows[1][1] && rows[1][1] <= current[1], "comparable as text: old < new <= now");
  assert.match(timelineOf(0), /^【对话时序 \/ conversation timeline】 \(Asia\/Shanghai\)$/m);

  h.settings.zone = "America/New_York";
  await h.agent.injectInputSync("cli", "cli", "and now?");
  assert.match(systemOf(1), /Current time: [\d-]+ [\d:]+ -0[45]:00 \(America\/New_York\)\./);
  assert.ok(timelineOf(1).includes(`[${formatInZone(sixDaysAgo, "America/New_York")}] cli: old question`));
});

test("an unknown core.agent.timezone falls back to the system zone with a warning", async () => {
  process.env.TZ = "Asia/Shanghai";
  const warnings: string[] = [];
  await h.close();
  h = startAgent({ log: { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} } });
  h.settings.zone = "Mars/Olympus_Mons";
  h.llm.enqueue({ text: "ok" });
  await h.agent.injectInputSync("cli", "cli", "hi");
  assert.match(systemOf(0), /\+08:00 \(Asia\/Shanghai\)/);
  assert.ok(warnings.some((w) => /core\.agent\.timezone "Mars\/Olympus_Mons" is not a known time zone/.test(w)));
});

test("the context window holds at most max_context_size events after every turn", async () => {
  h.settings.contextSize = 4;
  h.llm.fallback = () => ({ text: "reply" });
  for (let i = 0; i < 6; i++) {
    await h.agent.injectInputSync("cli", "cli", `message ${i}`);
    const held = h.context.size();
    assert.ok(held <= 4, `after turn ${i + 1} the window holds ${held} events`);
  }
  const window = await h.context.window();
  assert.deepEqual(
    window.map((e) => [e.input, e.response]),
    [
      ["message 2", "reply"],
      ["message 3", "reply"],
      ["message 4", "reply"],
      ["message 5", "reply"],
    ],
  );
  assert.deepEqual(h.context.prunes.at(-1), { query: "message 5", keep: 3 });
});
