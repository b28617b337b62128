/** The per-client token bucket: refusal with a wait, refill, IPv6 clients by /64, and the bound on clients. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../test/fixtures/fake-clock.js";
import { clientKey, LoginLimiter } from "./login-limit.js";

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

test("an IPv6 client is its /64: other addresses of it share one bucket; IPv4-mapped is the IPv4 address", () => {
  const limit = new LoginLimiter({ clock: new FakeClock(), perMinute: 5, burst: 2 });
  assert.equal(limit.take("2001:db8:1:2::1").ok, true);
  assert.equal(limit.take("2001:db8:1:2:ffff:ffff:ffff:fffe").ok, true);
  assert.equal(limit.take("2001:0DB8:0001:0002:0:0:0:99%eth0").ok, false, "a third address of the same /64");
  assert.equal(limit.take("2001:db8:1:3::1").ok, true, "the next /64 is another client");
  assert.equal(limit.take("::ffff:192.0.2.7").ok, true);
  assert.equal(limit.take("192.0.2.7").ok, true);
  assert.equal(limit.take("::ffff:c000:207").ok, false, "the same IPv4 client in all three spellings");
  assert.equal(clientKey("2001:db8::1"), "2001:db8:0:0::/64");
  assert.equal(clientKey("::1"), "0:0:0:0::/64");
  assert.equal(clientKey("::ffff:127.0.0.1"), "127.0.0.1");
  assert.equal(clientKey("127.0.0.1"), "127.0.0.1");
  assert.equal(clientKey("unknown"), "unknown");
});

test("the client table is bounded; refilled buckets go first, and a full table makes new clients wait", () => {
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
  assert.equal(limit.size, 3);
  const refused = limit.take("f");
  assert.deepEqual(refused, { ok: false, retryAfterS: 12, full: true }, "no bucket is pushed out for a newcomer");
  assert.equal(limit.take("limited").ok, false, "so a client cannot reset its own bucket by cycling addresses");
  clock.advance(12_000);
  assert.equal(limit.take("f").ok, true, "d and e refilled and made room");
});
