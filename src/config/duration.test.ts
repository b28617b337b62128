import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_TIMER_MS } from "../util/time-limit.js";
import { parseDuration } from "./duration.js";
import { ConfigError } from "./errors.js";

test("parseDuration reads Go duration syntax", () => {
  const cases: Array<[string, number]> = [
    ["500ms", 500],
    ["30s", 30_000],
    ["30m", 1_800_000],
    ["2h", 7_200_000],
    ["1h30m", 5_400_000],
    ["1.5h", 5_400_000],
    ["0", 0],
    ["1m30.5s", 90_500],
    [".5s", 500],
    ["250us", 0.25],
    ["1µs", 0.001],
    ["-2s", -2_000],
  ];
  for (const [input, ms] of cases) assert.equal(parseDuration(input), ms, input);
});

test("parseDuration rejects bad input with a hint", () => {
  for (const bad of ["abc", "", "30", "1.5", "h", ".s", "1d", "30 s", "1h 30m", "--1s", "s30"]) {
    assert.throws(
      () => parseDuration(bad),
      (err: Error) => err.message === `invalid duration ${JSON.stringify(bad)}: use e.g. 30s, 30m, 2h`,
      bad,
    );
  }
});

test("parseDuration refuses what a timer cannot hold (Node turns a longer delay into 1 ms)", () => {
  assert.equal(parseDuration("596h31m23.647s"), MAX_TIMER_MS);
  assert.equal(parseDuration("-596h31m23.647s"), -MAX_TIMER_MS);
  for (const bad of ["596h31m23.648s", "597h", "99999999999999999999h"]) {
    assert.throws(
      () => parseDuration(bad),
      (err: Error) =>
        err instanceof ConfigError &&
        err.code === "config_invalid" &&
        /a timer holds at most 2147483647 ms/.test(err.message),
      bad,
    );
  }
  assert.throws(() => parseDuration(`1${"0".repeat(100)}s`), /invalid duration "10{63}…"/, "long input is cut");
});
