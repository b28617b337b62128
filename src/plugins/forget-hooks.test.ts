/**
 * ForgetHooks: every plugin's onForget handler is asked at once; one that throws, answers nonsense or does
 * not answer in time is reported with the reason and never holds the others (or the forget) up; answers are
 * bounded; a stopped plugin's handler is gone.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ForgetHooks } from "./forget-hooks.js";

test("each handler is asked with the request; reports come back by plugin name", async () => {
  const hooks = new ForgetHooks();
  const asked: unknown[] = [];
  hooks.set("zeta", (r) => {
    asked.push(r);
    return { counts: { files: 2 }, samples: ["a.txt"] };
  });
  hooks.set("alpha", async () => ({ counts: {} }));
  const reports = await hooks.run({ terms: ["pin 7391"], confirm: false });
  assert.deepEqual(asked, [{ terms: ["pin 7391"], confirm: false }]);
  assert.deepEqual(reports, [
    { plugin: "alpha", counts: {}, samples: [] },
    { plugin: "zeta", counts: { files: 2 }, samples: ["a.txt"] },
  ]);
  hooks.remove("zeta");
  assert.deepEqual(
    (await hooks.run({ terms: ["x"], confirm: true })).map((r) => r.plugin),
    ["alpha"],
  );
});

test("a handler that throws, answers nonsense or hangs is reported, and the others still answer", async () => {
  const hooks = new ForgetHooks(50);
  hooks.set("thrower", () => {
    throw new Error("disk on fire");
  });
  hooks.set("liar", () => ({ counts: { files: "many" } }) as never);
  hooks.set("mute", () => new Promise(() => {}));
  hooks.set("empty", () => undefined as never);
  hooks.set("good", () => ({ counts: { notes: 1 } }));
  const started = performance.now();
  const reports = await hooks.run({ terms: ["x"], confirm: true });
  assert.ok(performance.now() - started < 2000, "one deadline for all, not one after another");
  const by = Object.fromEntries(reports.map((r) => [r.plugin, r]));
  assert.equal(by.thrower.error, "disk on fire");
  assert.match(by.liar.error ?? "", /counts\.files is not a number/);
  assert.match(by.mute.error ?? "", /no answer within 50 ms/);
  assert.match(by.empty.error ?? "", /without \{counts\}/);
  assert.deepEqual(by.good, { plugin: "good", counts: { notes: 1 }, samples: [] });
});

test("answers are bounded: kinds, names, samples; counts are whole and not negative", async () => {
  const hooks = new ForgetHooks();
  const counts = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`kind${i}${"k".repeat(100)}`, i - 0.5]));
  hooks.set("big", () => ({ counts, samples: [...Array.from({ length: 20 }, () => "s".repeat(500)), 7 as never] }));
  const [r] = await hooks.run({ terms: ["x"], confirm: false });
  assert.equal(Object.keys(r.counts).length, 16);
  assert.ok(Object.keys(r.counts).every((k) => k.length <= 64));
  assert.ok(Object.values(r.counts).every((n) => Number.isInteger(n) && n >= 0));
  assert.equal(r.samples.length, 8);
  assert.ok(r.samples.every((s) => s.length === 200));
});
