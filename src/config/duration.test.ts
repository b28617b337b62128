import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDuration } from "./duration.js";

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
