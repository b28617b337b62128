/**
 * A plugin's log budget: a burst passes, a flood beyond it is dropped and summed up once it stops (or when
 * the plugin exits), and protocol errors are summed up at the end of their window even when none follows.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Logger } from "@homeagent/sdk";
import { waitFor } from "../../../test/fixtures/wait.js";
import { clipLogMessage, LOG_BURST_LINES, LOG_MESSAGE_CHARS, LogRate } from "./log-rate.js";
import { ProtocolLog } from "./protocol-log.js";

function recorder(): { log: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const none = () => {};
  return { warnings, log: { debug: none, info: none, error: none, warn: (m) => void warnings.push(m) } };
}

test("a burst passes; a flood beyond it is dropped, and summed up once it is over", async () => {
  const { log, warnings } = recorder();
  const rate = new LogRate("noisy", log, { quietMs: 30 });
  let admitted = 0;
  for (let i = 0; i < 5000; i++) if (rate.admit()) admitted++;
  assert.ok(admitted >= LOG_BURST_LINES && admitted < LOG_BURST_LINES + 50, `${admitted} admitted`);
  assert.deepEqual(warnings, [], "nothing is said while the flood goes on");
  await waitFor(() => warnings.length === 1, "the summary after the flood");
  assert.match(
    warnings[0],
    new RegExp(`^${5000 - admitted} lines from plugin "noisy" suppressed: it logged more than 100 lines/s`),
  );
  rate.close();
  assert.equal(warnings.length, 1, "nothing left to sum up");
});

test("a flood the plugin exits in is summed up at the exit", () => {
  const { log, warnings } = recorder();
  const rate = new LogRate("dying", log, { burst: 1 });
  assert.equal(rate.admit(), true);
  assert.equal(rate.admit(), false);
  assert.equal(rate.admit(), false);
  rate.close();
  assert.deepEqual(warnings, [
    '2 lines from plugin "dying" suppressed: it logged more than 100 lines/s (core.log and stderr together)',
  ]);
});

test("a core.log message is cut to 4 KiB, saying how much was cut", () => {
  assert.equal(clipLogMessage("short"), "short");
  const cut = clipLogMessage("x".repeat(LOG_MESSAGE_CHARS + 7));
  assert.equal(cut, `${"x".repeat(LOG_MESSAGE_CHARS)}… [7 more characters]`);
});

test("protocol errors over the window's quota are summed up when the window ends, with no later error", async () => {
  const { log, warnings } = recorder();
  const protocol = new ProtocolLog("garbler", log, 50);
  for (let i = 0; i < 25; i++) protocol.report(`bad line ${i}`);
  assert.equal(warnings.length, 20);
  await waitFor(() => warnings.length === 21, "the summary at the end of the window");
  assert.equal(warnings[20], 'plugin "garbler": 5 more protocol errors were not logged');
});

test("protocol errors left out are summed up when the plugin exits", () => {
  const { log, warnings } = recorder();
  const protocol = new ProtocolLog("quitter", log);
  for (let i = 0; i < 23; i++) protocol.report(`bad line ${i}`);
  protocol.close();
  assert.equal(warnings.at(-1), 'plugin "quitter": 3 more protocol errors were not logged');
});
