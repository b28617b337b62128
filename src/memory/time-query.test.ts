import assert from "node:assert/strict";
import { test } from "node:test";
import { formatInZone } from "../util/time-zone.js";
import { parseTimeQuery, type TimeRange } from "./time-query.js";

// Wednesday 18 June 2025, 10:00 in Shanghai (02:00 UTC).
const NOW = Date.UTC(2025, 5, 18, 2, 0, 0);
const SH = "Asia/Shanghai";

function range(text: string, zone = SH, now = NOW): TimeRange | null {
  return parseTimeQuery(text, { now, zone });
}

/** The range as local wall-clock text in `zone`, "since … until". */
function local(text: string, zone = SH, now = NOW): string {
  const r = range(text, zone, now);
  assert.ok(r, `"${text}" should name a range`);
  return `${formatInZone(r.since, zone)} … ${formatInZone(r.until, zone)}`;
}

const cases: Array<[string, string]> = [
  ["what did I do yesterday?", "2025-06-17 00:00:00 … 2025-06-17 23:59:59"],
  ["anything I said today", "2025-06-18 00:00:00 … 2025-06-18 23:59:59"],
  ["the day before yesterday", "2025-06-16 00:00:00 … 2025-06-16 23:59:59"],
  ["what did we talk about last week", "2025-06-09 00:00:00 … 2025-06-15 23:59:59"],
  ["this week's plans", "2025-06-16 00:00:00 … 2025-06-22 23:59:59"],
  ["last month I went hiking", "2025-05-01 00:00:00 … 2025-05-31 23:59:59"],
  ["where did I travel last year", "2024-01-01 00:00:00 … 2024-12-31 23:59:59"],
  ["What happened in May 2023?", "2023-05-01 00:00:00 … 2023-05-31 23:59:59"],
  ["May 2023", "2023-05-01 00:00:00 … 2023-05-31 23:59:59"],
  ["the trip in March, 2024", "2024-03-01 00:00:00 … 2024-03-31 23:59:59"],
  ["What did Caroline say on 8 May 2023?", "2023-05-08 00:00:00 … 2023-05-08 23:59:59"],
  ["on May 8th, 2023", "2023-05-08 00:00:00 … 2023-05-08 23:59:59"],
  ["the call on 2024-02-29", "2024-02-29 00:00:00 … 2024-02-29 23:59:59"],
  ["books I read in 2022", "2022-01-01 00:00:00 … 2022-12-31 23:59:59"],
  ["a concert two weeks ago", "2025-05-31 22:00:00 … 2025-06-07 22:00:00"],
  ["three days ago", "2025-06-15 00:00:00 … 2025-06-15 23:59:59"],
  ["a couple of months ago", "2025-04-01 00:00:00 … 2025-04-30 23:59:59"],
  ["in the past 3 days", "2025-06-15 10:00:00 … 2025-06-18 10:00:00"],
  ["last Friday", "2025-06-13 00:00:00 … 2025-06-13 23:59:59"],
  ["in May", "2025-05-01 00:00:00 … 2025-05-31 23:59:59"],
  ["in July", "2024-07-01 00:00:00 … 2024-07-31 23:59:59"],
  ["on 3 July", "2024-07-03 00:00:00 … 2024-07-03 23:59:59"],
  ["since May 2023", "2023-05-01 00:00:00 … 2025-06-18 10:00:00"],
  ["what have I been up to recently", "2025-06-04 10:00:00 … 2025-06-18 10:00:00"],
  ["昨天我说了什么", "2025-06-17 00:00:00 … 2025-06-17 23:59:59"],
  ["前天", "2025-06-16 00:00:00 … 2025-06-16 23:59:59"],
  ["大前天", "2025-06-15 00:00:00 … 2025-06-15 23:59:59"],
  ["上周去了哪里", "2025-06-09 00:00:00 … 2025-06-15 23:59:59"],
  ["上个星期", "2025-06-09 00:00:00 … 2025-06-15 23:59:59"],
  ["上周五", "2025-06-13 00:00:00 … 2025-06-13 23:59:59"],
  ["这周", "2025-06-16 00:00:00 … 2025-06-22 23:59:59"],
  ["上个月的账单", "2025-05-01 00:00:00 … 2025-05-31 23:59:59"],
  ["去年夏天", "2024-01-01 00:00:00 … 2024-12-31 23:59:59"],
  ["今年的目标", "2025-01-01 00:00:00 … 2025-12-31 23:59:59"],
  ["2023年5月发生了什么", "2023-05-01 00:00:00 … 2023-05-31 23:59:59"],
  ["2023年五月", "2023-05-01 00:00:00 … 2023-05-31 23:59:59"],
  ["2023年5月8日", "2023-05-08 00:00:00 … 2023-05-08 23:59:59"],
  ["2022年", "2022-01-01 00:00:00 … 2022-12-31 23:59:59"],
  ["5月", "2025-05-01 00:00:00 … 2025-05-31 23:59:59"],
  ["十二月的事", "2024-12-01 00:00:00 … 2024-12-31 23:59:59"],
  ["3月8号", "2025-03-08 00:00:00 … 2025-03-08 23:59:59"],
  ["三天前", "2025-06-15 00:00:00 … 2025-06-15 23:59:59"],
  ["三个月前", "2025-03-01 00:00:00 … 2025-03-31 23:59:59"],
  ["两周前", "2025-05-31 22:00:00 … 2025-06-07 22:00:00"],
  ["最近三天", "2025-06-15 10:00:00 … 2025-06-18 10:00:00"],
  ["最近怎么样", "2025-06-04 10:00:00 … 2025-06-18 10:00:00"],
];

for (const [text, expected] of cases) {
  test(`time query: ${text}`, () => {
    assert.equal(local(text), expected);
  });
}

test("no range: 'When did X …?' asks for a time instead of naming one", () => {
  for (const q of [
    "When did Caroline go to the LGBTQ support group?",
    "When did Melanie paint a sunrise?",
    "When is Melanie planning on going camping?",
    "Caroline是什么时候去的支持小组？",
    "What fields would Caroline be likely to pursue in her educaton?",
    "",
  ]) {
    assert.equal(range(q), null, q);
  }
});

test("the verb 'may' is not the month; the capitalised month is", () => {
  assert.equal(range("may I ask in may what you think"), null);
  assert.equal(range("you may 3 times"), null);
  assert.ok(range("what did I do in May"));
});

test("a month in the future is last year's; an all-future range is none", () => {
  assert.equal(local("in December"), "2024-12-01 00:00:00 … 2024-12-31 23:59:59");
  assert.equal(range("in 2030"), null);
  assert.equal(range("2030年"), null);
});

test("yesterday is the user's yesterday: the same instant gives different days in different zones", () => {
  // 23:30 UTC on 18 June is already 19 June in Shanghai, still 18 June in Los Angeles.
  const now = Date.UTC(2025, 5, 18, 23, 30);
  assert.equal(local("yesterday", SH, now), "2025-06-18 00:00:00 … 2025-06-18 23:59:59");
  assert.equal(local("yesterday", "UTC", now), "2025-06-17 00:00:00 … 2025-06-17 23:59:59");
  assert.equal(local("昨天", "America/Los_Angeles", now), "2025-06-17 00:00:00 … 2025-06-17 23:59:59");
  const sh = range("yesterday", SH, now);
  const la = range("yesterday", "America/Los_Angeles", now);
  assert.ok(sh && la);
  assert.equal(sh.since, Date.UTC(2025, 5, 17, 16)); // Shanghai midnight = 16:00 UTC the day before
  assert.equal(la.since, Date.UTC(2025, 5, 17, 7)); // PDT midnight = 07:00 UTC
});

test("days across a daylight-saving change still start at local midnight", () => {
  // 12 March 2023: New York springs forward; the day is 23 hours long.
  const now = Date.UTC(2023, 2, 13, 15);
  const r = range("yesterday", "America/New_York", now);
  assert.ok(r);
  assert.equal(r.since, Date.UTC(2023, 2, 12, 5));
  assert.equal(r.until, Date.UTC(2023, 2, 13, 4) - 1);
});

test("strength: explicit dates are surest, 'recently' weakest; the surest expression wins", () => {
  assert.equal(range("in May 2023")?.strength, 1);
  assert.ok((range("last week")?.strength ?? 0) < 1);
  assert.equal(range("recently")?.strength, 0.3);
  assert.equal(range("最近")?.strength, 0.3);
  const both = range("recently, I mean in 2022");
  assert.equal(both?.label, "in 2022");
  assert.equal(range("in May 2023")?.label, "May 2023");
});
