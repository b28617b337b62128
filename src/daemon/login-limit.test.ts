/** The per-address token bucket: refusal with a wait, refill, and the bound on addresses. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../test/fixtures/fake-clock.js";
import { LoginLimiter } from "./login-limit.js";

test("a burst passes, the next attempt waits for one token, then recovers", () => {
  const clock = new FakeClock();
  const limit = new LoginLimiter({ clock, perMinute: 5, burst: 5 });
  for (let i = 0; i < 5; i++) assert.deepEqual(limit.take("a"), { ok: true });
  assert.deepEqual(limit.take("a"), { ok: false, retryAfterS: 12 });
  clock.advance(6_000);
  assert.deepEqual(limit.take("a"), { ok: false, retryAfterS: 6 });
  clock.advance(6_000);
  assert.deepEqual(limit.take("a"), { ok: true });
  clock.advance(60_000);
  for (let i = 0; i < 5; i++) assert.deepEqual(limit.take("a"), { ok: true }, "a full burst again after a minute");
});

test("the address table is bounded; refilled buckets go first, then the least recently tried", () => {
  const clock = new FakeClock();
  const limit = new LoginLimiter({ clock, perMinute: 5, burst: 2, maxAddresses: 3 });
  limit.take("limited");
  limit.take("limited");
  limit.take("b");
  limit.take("c");
  clock.advance(12_000);
  limit.take("d");
  assert.equal(limit.size, 2, "b and c had refilled and were dropped");
  assert.equal(limit.take("limited").ok, true);
  assert.equal(limit.take("limited").ok, false, "still remembered as limited");
  limit.take("e");
  limit.take("f");
  assert.equal(limit.size, 3, "d, the least recently tried, made room for f");
  assert.equal(limit.take("limited").ok, false);
});
