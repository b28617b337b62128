import assert from "node:assert/strict";
import { test } from "node:test";
import { DefTable } from "../../config/definitions.js";
import { parseDuration } from "../../config/duration.js";
import { valueProblem } from "../../config/validate.js";
import { HEARTBEAT_CONFIG_DEFS, LOOP_KEYS } from "./config.js";

test("the loop intervals register with the original keys and defaults", () => {
  const table = new DefTable();
  table.register([...HEARTBEAT_CONFIG_DEFS]);
  const defaults = Object.fromEntries(HEARTBEAT_CONFIG_DEFS.map((d) => [d.key, parseDuration(d.default)]));
  assert.deepEqual(defaults, {
    "core.agent.distill_interval": 30 * 60_000,
    "core.agent.archive_interval": 60 * 60_000,
    "core.agent.merge_interval": 120 * 60_000,
    "core.agent.review_interval": 120 * 60_000,
  });
  assert.deepEqual(Object.values(LOOP_KEYS).sort(), Object.keys(defaults).sort());
});

test("an interval is 0 (off) or at least a minute, at most a week", () => {
  const def = HEARTBEAT_CONFIG_DEFS[0];
  assert.equal(valueProblem(def, "0"), undefined);
  assert.equal(valueProblem(def, "5m"), undefined);
  assert.match(valueProblem(def, "30s") ?? "", /at least 1m/);
  assert.ok(valueProblem(def, "200h"), "over a week is refused");
});
