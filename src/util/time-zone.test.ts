/** Dates in a zone are arithmetic on a cached offset: right on both sides of a change, also on its day. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatInZone, zoneOffset } from "./time-zone.js";

test("offsets and dates around a daylight-saving change, on its day and the days around it", () => {
  const ny = "America/New_York";
  // 2025-03-09 07:00 UTC: 02:00 EST became 03:00 EDT.
  const change = Date.UTC(2025, 2, 9, 7);
  assert.equal(formatInZone(change - 60_000, ny), "2025-03-09 01:59:00");
  assert.equal(formatInZone(change, ny), "2025-03-09 03:00:00");
  assert.equal(zoneOffset(change - 1, ny), "-05:00");
  assert.equal(zoneOffset(change, ny), "-04:00");
  assert.equal(zoneOffset(Date.UTC(2025, 2, 8, 12), ny), "-05:00");
  assert.equal(zoneOffset(Date.UTC(2025, 2, 10, 12), ny), "-04:00");
  // Lord Howe moves by half an hour.
  const lh = "Australia/Lord_Howe";
  assert.equal(zoneOffset(Date.UTC(2025, 0, 15), lh), "+11:00");
  assert.equal(zoneOffset(Date.UTC(2025, 5, 15), lh), "+10:30");
  assert.equal(formatInZone(Date.UTC(2023, 4, 8, 5, 56), "Asia/Shanghai"), "2023-05-08 13:56:00");
});

test("a year of dates, every hour, matches Intl in a zone with changes", () => {
  const zone = "Europe/Berlin";
  const intl = new Intl.DateTimeFormat("sv-SE", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  for (let ms = Date.UTC(2024, 0, 1); ms < Date.UTC(2025, 0, 1); ms += 3_600_000 + 17_000) {
    assert.equal(formatInZone(ms, zone), intl.format(ms), new Date(ms).toISOString());
  }
});
