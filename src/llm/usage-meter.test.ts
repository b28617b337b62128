/** The usage meter: local days and hours, the bounds, and what it reads back. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../test/fixtures/fake-clock.js";
import { OTHER_SOURCES, UsageMeter } from "./usage-meter.js";

const SHANGHAI = "Asia/Shanghai";
/** 2024-05-01 23:30 in Shanghai (UTC+8). */
const LATE_EVENING = Date.UTC(2024, 4, 1, 15, 30);

function meter(clock: FakeClock, zone = SHANGHAI, maxSources?: number): UsageMeter {
  return new UsageMeter({ zone: () => zone, now: () => clock.now(), maxSources });
}

test("calls and turns add up per source and local hour; tokens are kept as reported", () => {
  const clock = new FakeClock(LATE_EVENING);
  const m = meter(clock);
  m.recordCall("main", { prompt: 100, completion: 20 });
  m.recordCall("main", { prompt: 150, completion: 30 });
  m.recordTurn("main");
  m.recordCall("backup", null);
  m.recordCall("backup", { prompt: 0, completion: 0 });
  m.recordTurn("backup");
  const today = m.today();
  assert.deepEqual(
    { day: today.day, hour: today.hour, timeZone: today.timeZone },
    {
      day: "2024-05-01",
      hour: 23,
      timeZone: SHANGHAI,
    },
  );
  assert.deepEqual(today.sources, [
    {
      name: "backup",
      turns: 1,
      calls: 2,
      callsWithoutUsage: 2,
      promptTokens: 0,
      completionTokens: 0,
      byHour: [{ hour: 23, turns: 1, promptTokens: 0, completionTokens: 0 }],
    },
    {
      name: "main",
      turns: 1,
      calls: 2,
      callsWithoutUsage: 0,
      promptTokens: 250,
      completionTokens: 50,
      byHour: [{ hour: 23, turns: 1, promptTokens: 250, completionTokens: 50 }],
    },
  ]);
});

test("the day rolls over at local midnight, not at UTC midnight; the day before is kept, older ones go", () => {
  const clock = new FakeClock(LATE_EVENING);
  const m = meter(clock);
  m.recordTurn("main");
  clock.advance(40 * 60_000); // 00:10 on 2024-05-02 in Shanghai, still 2024-05-01 in UTC
  const fresh = m.today();
  assert.deepEqual([fresh.day, fresh.hour, fresh.sources], ["2024-05-02", 0, []]);
  m.recordTurn("main");
  m.recordTurn("main");
  assert.deepEqual(m.today().sources[0]?.byHour, [{ hour: 0, turns: 2, promptTokens: 0, completionTokens: 0 }]);
  assert.deepEqual(
    m.toJSON().days.map((d) => d.day),
    ["2024-05-01", "2024-05-02"],
  );
  clock.advance(24 * 3_600_000);
  m.recordTurn("main");
  assert.deepEqual(
    m.toJSON().days.map((d) => d.day),
    ["2024-05-02", "2024-05-03"],
  );
  // The same moment is still 2024-05-02 in UTC: the zone is read at every call.
  assert.equal(meter(clock, "UTC").today().day, "2024-05-02");
});

test("names beyond the bound add up under (other); a name already seen keeps its own row", () => {
  const clock = new FakeClock(LATE_EVENING);
  const m = meter(clock, SHANGHAI, 2);
  for (const name of ["a", "b", "c", "d", "a"]) m.recordCall(name, { prompt: 1, completion: 1 });
  const rows = m.today().sources.map((s) => [s.name, s.calls]);
  assert.deepEqual(rows, [
    ["a", 2],
    ["b", 1],
    [OTHER_SOURCES, 2],
  ]);
  // Every hour of a day for every row: still 3 rows × 24 hours.
  for (let h = 0; h < 30; h++) {
    m.recordCall(`x${h}`, null);
    clock.advance(3_600_000 / 2);
  }
  for (const day of m.toJSON().days) {
    assert.ok(day.sources.length <= 3);
    for (const s of day.sources) assert.ok(s.hours.length <= 24);
  }
});

test("what toJSON wrote reads back the same through JSON; anything else is refused and changes nothing", () => {
  const clock = new FakeClock(LATE_EVENING);
  const m = meter(clock);
  m.recordCall("main", { prompt: 7, completion: 3 });
  m.recordTurn("main");
  const copy = meter(clock);
  copy.restore(JSON.parse(JSON.stringify(m.toJSON())));
  assert.deepEqual(copy.today(), m.today());

  const bad: unknown[] = [
    null,
    [],
    { format: 2, days: [] },
    { format: 1, days: [{ day: "yesterday", sources: [] }] },
    { format: 1, days: [{ day: "2024-05-01", sources: [{ name: "", hours: [] }] }] },
    { format: 1, days: [{ day: "2024-05-01", sources: [{ name: "x", hours: [{ hour: 24 }] }] }] },
    {
      format: 1,
      days: [
        {
          day: "2024-05-01",
          sources: [
            {
              name: "x",
              hours: [{ hour: 1, turns: -1, calls: 0, callsWithoutUsage: 0, promptTokens: 0, completionTokens: 0 }],
            },
          ],
        },
      ],
    },
  ];
  for (const data of bad) {
    const target = meter(clock);
    assert.throws(() => target.restore(data), { code: "usage_file_invalid" }, JSON.stringify(data));
    assert.deepEqual(target.today().sources, []);
  }
});

test("every change is announced, reading is not", () => {
  const clock = new FakeClock(LATE_EVENING);
  let changes = 0;
  const m = new UsageMeter({ zone: () => "UTC", now: () => clock.now(), onChange: () => changes++ });
  m.recordCall("main", null);
  m.recordTurn("main");
  m.today();
  m.toJSON();
  assert.equal(changes, 2);
});

test("counts past 2^53 stay at Number.MAX_SAFE_INTEGER, when added and when read back, instead of losing the day", () => {
  const clock = new FakeClock(LATE_EVENING);
  const m = meter(clock);
  m.recordCall("main", { prompt: Number.MAX_SAFE_INTEGER - 1, completion: 2 ** 60 });
  m.recordCall("main", { prompt: 5, completion: 1 });
  const [main] = m.today().sources;
  assert.equal(main.promptTokens, Number.MAX_SAFE_INTEGER);
  assert.equal(main.completionTokens, Number.MAX_SAFE_INTEGER);

  // Written as text: JSON.stringify cannot write 2^53 + 1 or 1e400 as a file could hold them.
  const hour = (prompt: string) =>
    `{"hour":23,"turns":1,"calls":1,"callsWithoutUsage":0,"completionTokens":3,"promptTokens":${prompt}}`;
  const file = `{"format":1,"days":[{"day":"2024-05-01","sources":[
    {"name":"big","hours":[${hour("9007199254740993")}]},
    {"name":"huge","hours":[${hour("1e400")}]}]}]}`;
  const copy = meter(clock);
  copy.restore(JSON.parse(file));
  copy.restore(JSON.parse(file));
  const read = copy.today().sources;
  assert.deepEqual(
    read.map((s) => [s.name, s.turns, s.promptTokens, s.completionTokens]),
    [
      ["big", 2, Number.MAX_SAFE_INTEGER, 6],
      ["huge", 2, Number.MAX_SAFE_INTEGER, 6],
    ],
  );
  const again = meter(clock);
  again.restore(JSON.parse(JSON.stringify(copy.toJSON())));
  assert.deepEqual(again.today(), copy.today(), "what it writes at the cap reads back");
});

test("sources sort naturally: src2 before src10, (other) last", () => {
  const m = meter(new FakeClock(LATE_EVENING), SHANGHAI, 3);
  for (const name of ["src10", "src2", "src1", "late"]) m.recordTurn(name);
  assert.deepEqual(
    m.today().sources.map((s) => s.name),
    ["src1", "src2", "src10", OTHER_SOURCES],
  );
});
