/** usage.json: written late and whole, read back after a restart, and never a reason not to start. */
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Logger } from "@homeagent/sdk";
import { FakeClock } from "../../test/fixtures/fake-clock.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { openUsageFile, USAGE_WRITE_DELAY_MS } from "./usage-file.js";

function recorder(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const none = () => {};
  return { warnings, debug: none, info: none, error: none, warn: (msg) => warnings.push(msg) };
}

function open(file: string, clock: FakeClock, log = recorder()) {
  return openUsageFile({ file, zone: () => "UTC", log, clock });
}

test("changes are written once per delay, 0600, and read back by the next start", () => {
  const file = join(tempDir("ha-usage-"), "usage.json");
  const clock = new FakeClock();
  const first = open(file, clock);
  first.meter.recordCall("main", { prompt: 12, completion: 4 });
  first.meter.recordTurn("main");
  assert.equal(existsSync(file), false, "nothing is written before the delay");
  assert.equal(clock.pending, 1, "many changes, one write scheduled");
  clock.advance(USAGE_WRITE_DELAY_MS);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const restarted = open(file, clock);
  assert.deepEqual(restarted.meter.today(), first.meter.today());
  assert.equal(restarted.meter.today().sources[0]?.turns, 1);
});

test("close writes what is pending at once, and nothing after", () => {
  const file = join(tempDir("ha-usage-"), "usage.json");
  const clock = new FakeClock();
  const usage = open(file, clock);
  usage.meter.recordTurn("main");
  usage.close();
  assert.equal(clock.pending, 0);
  assert.equal(open(file, clock).meter.today().sources[0]?.turns, 1);
  usage.meter.recordTurn("main");
  assert.equal(clock.pending, 0, "a closed meter schedules no write");
});

test("a corrupt, foreign or oversized file is reported and ignored, and replaced at the next write", () => {
  const contents = ["{not json", JSON.stringify({ format: 1, days: "all of them" }), " ".repeat(1024 * 1024 + 1)];
  for (const text of contents) {
    const file = join(tempDir("ha-usage-"), "usage.json");
    writeFileSync(file, text);
    const clock = new FakeClock();
    const log = recorder();
    const usage = open(file, clock, log);
    assert.deepEqual(usage.meter.today().sources, []);
    assert.equal(log.warnings.length, 1);
    assert.match(log.warnings[0] ?? "", /usage could not be read from .*usage\.json .*start from zero/);
    usage.meter.recordTurn("main");
    usage.close();
    assert.equal(JSON.parse(readFileSync(file, "utf8")).format, 1);
  }
});

test("a write that fails is logged and the figures stay in memory", () => {
  const file = join(tempDir("ha-usage-"), "missing-folder", "usage.json");
  const clock = new FakeClock();
  const log = recorder();
  const usage = open(file, clock, log);
  usage.meter.recordTurn("main");
  clock.advance(USAGE_WRITE_DELAY_MS);
  assert.match(log.warnings[0] ?? "", /writing today's LLM usage to .* failed \(figures kept in memory\)/);
  assert.equal(usage.meter.today().sources[0]?.turns, 1);
});
