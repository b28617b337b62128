/**
 * The self-test's schedule and task (mock SDK, a clock the test moves): off by default; once an interval
 * is set it runs when the interval has passed, as a self-task offered only the read-only tools present and
 * healthcheck_report, within llm_max_turns and llm_timeout; its outcome is a check of the report, a warning
 * when it failed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SelfTaskRequest } from "@homeagent/sdk";
import { createMockSDK } from "@homeagent/sdk/test";
import { SelfTest } from "./self-test.js";

test("off by default; runs every auto_interval with the read-only tools present, bounded", async () => {
  const runs: Array<{ text: string; opts: SelfTaskRequest }> = [];
  let failNext = false;
  const sdk = createMockSDK({
    pluginName: "healthcheck",
    toolNames: ["memory_recall", "files_ls", "cmd_run", "files_write", "healthcheck_report"],
    settings: { llm_max_turns: "7", llm_timeout: "30s" },
    selfTask: (text, opts) => {
      runs.push({ text, opts });
      return failNext
        ? { requestId: "r", content: "", shortCircuited: false, error: "all LLM sources failed" }
        : { requestId: "r", content: "2 worked, none failed", shortCircuited: false };
    },
  });
  let now = 1_000_000;
  const selfTest = new SelfTest(sdk, () => now);
  await selfTest.tick();
  assert.equal(runs.length, 0, "off by default");
  assert.deepEqual(selfTest.checks(), []);

  sdk.settings.set("auto_interval", "30m");
  await selfTest.tick();
  now += 29 * 60_000;
  await selfTest.tick();
  assert.equal(runs.length, 0, "not before the interval has passed");
  now += 60_000;
  await selfTest.tick();
  assert.equal(runs.length, 1);
  assert.deepEqual(runs[0].opts, {
    tools: ["memory_recall", "files_ls", "healthcheck_report"],
    maxToolTurns: 7,
    timeoutMs: 30_000,
  });
  assert.match(runs[0].text, /memory_recall, files_ls/);
  assert.ok(!runs[0].text.includes("cmd_run"));
  assert.equal(selfTest.checks()[0].status, "ok");
  assert.match(selfTest.checks()[0].detail, /2 worked, none failed/);

  failNext = true;
  now += 30 * 60_000;
  await selfTest.tick();
  assert.equal(runs.length, 2);
  assert.equal(selfTest.checks()[0].status, "warn");
  assert.match(selfTest.checks()[0].detail, /all LLM sources failed/);
});
