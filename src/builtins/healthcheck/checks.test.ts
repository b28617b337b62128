/**
 * The pure verdicts of the static checks: plugin states, disk room, clock sanity, memory parts, the report's
 * order and bounds — each with its failing case.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PluginInfo } from "@homeagent/sdk";
import { type Check, report } from "./check.js";
import { clockCheck } from "./clock-check.js";
import { diskVerdict } from "./disk-check.js";
import { memoryChecks } from "./memory-check.js";
import { pluginChecks } from "./plugins-check.js";

const MIB = 1024 * 1024;
const plugin = (over: Partial<PluginInfo>): PluginInfo => ({
  name: "p",
  kind: "builtin",
  state: "running",
  health: "ok",
  capabilities: [],
  critical: false,
  crashes: 0,
  restarts: 0,
  ...over,
});

test("a failed, unhealthy or degraded plugin fails with its reason; a running one is ok", () => {
  const checks = pluginChecks([
    plugin({ name: "good" }),
    plugin({ name: "broken", state: "failed", lastError: "start threw: no config" }),
    plugin({ name: "flaky", state: "unhealthy", crashes: 3, lastError: "exit 1" }),
    plugin({ name: "slow", health: "degraded", healthReason: "before_toolcall timed out 3 of 5 runs" }),
    plugin({ name: "off", state: "disabled" }),
  ]);
  assert.deepEqual(
    checks.map((c) => [c.name, c.status]),
    [
      ["plugin:good", "ok"],
      ["plugin:broken", "fail"],
      ["plugin:flaky", "fail"],
      ["plugin:slow", "fail"],
      ["plugin:off", "ok"],
    ],
  );
  assert.match(checks[1].detail, /start threw: no config/);
  assert.match(checks[1].fix ?? "", /\/plugins restart broken/);
  assert.match(checks[3].detail, /before_toolcall timed out/);
});

test("disk: fail under 100 MiB, warn under 1 GiB or 5 %, ok otherwise", () => {
  assert.equal(diskVerdict("/d", 50 * MIB, 100_000 * MIB).status, "fail");
  assert.equal(diskVerdict("/d", 500 * MIB, 100_000 * MIB).status, "warn");
  assert.equal(diskVerdict("/d", 2_000 * MIB, 100_000 * MIB).status, "warn", "2 % of the disk");
  const good = diskVerdict("/d", 50_000 * MIB, 100_000 * MIB);
  assert.equal(good.status, "ok");
  assert.match(good.detail, /48\.8 GiB free of 97\.7 GiB \(50\.0 %\) on the disk of \/d/);
});

test("clock: behind the newest stored event or the build fails; a jump against the monotonic clock warns", () => {
  const base = { wallAtStart: 1_000_000, monoAtStart: 0, wallNow: 1_060_000, monoNow: 60_000 };
  assert.equal(clockCheck(base).status, "ok");
  const behind = clockCheck({ ...base, newestEvent: 1_060_000 + 3_600_000 });
  assert.equal(behind.status, "fail");
  assert.match(behind.detail, /before the newest event in memory/);
  assert.equal(clockCheck({ ...base, builtAt: 1_060_000 + 86_400_000 }).status, "fail");
  assert.equal(clockCheck({ ...base, newestEvent: 1_060_000 + 60_000 }).status, "ok", "a minute apart is tolerated");
  const jumped = clockCheck({ ...base, wallNow: 1_060_000 + 3_600_000 });
  assert.equal(jumped.status, "warn");
  assert.match(jumped.detail, /moved 3600 s apart/);
});

test("memory parts: a failed part fails with its problems and a fix, an incomplete one warns", () => {
  const checks = memoryChecks({
    ok: false,
    durationMs: 12,
    at: 1,
    parts: [
      { name: "database", status: "ok", detail: "fine", problems: [], durationMs: 3 },
      { name: "keyword_index", status: "fail", detail: "1 of 3 wrong", problems: ["item doc:b: …"], durationMs: 5 },
      { name: "vector_index", status: "incomplete", detail: "ran out of time", problems: [], durationMs: 9 },
    ],
  });
  assert.deepEqual(
    checks.map((c) => [c.name, c.status]),
    [
      ["memory:database", "ok"],
      ["memory:keyword_index", "fail"],
      ["memory:vector_index", "warn"],
    ],
  );
  assert.match(checks[1].detail, /item doc:b/);
  assert.ok(checks[1].fix);
});

test("a report lists failures first, counts every check and stays bounded", () => {
  const many: Check[] = Array.from({ length: 250 }, (_, i) => ({ name: `ok${i}`, status: "ok", detail: "x" }));
  many.push({ name: "bad", status: "fail", detail: "y".repeat(5_000) }, { name: "meh", status: "warn", detail: "z" });
  const r = report(many, performance.now());
  assert.equal(r.status, "fail");
  assert.deepEqual(r.counts, { ok: 250, warn: 1, fail: 1 });
  assert.deepEqual(
    r.checks.slice(0, 2).map((c) => c.name),
    ["bad", "meh"],
  );
  assert.equal(r.checks.length, 200);
  assert.equal(r.omitted, 52);
  assert.ok(r.checks[0].detail.length <= 600);
});
