/** Session expiry and the bound on how many sessions are kept. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../test/fixtures/fake-clock.js";
import { SessionStore } from "./sessions.js";

test("sessions expire after their lifetime and do not outlive a credentials change", () => {
  const clock = new FakeClock();
  const store = new SessionStore({ clock, ttlMs: 1000 });
  const s = store.create("admin", 1);
  assert.match(s.id, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(s.id, s.csrf);
  assert.equal(s.expiresAt, s.createdAt + 1000);
  assert.equal(store.get(s.id, 2), undefined, "opened under older credentials");
  const t = store.create("admin", 1);
  clock.advance(1000);
  assert.equal(store.get(t.id, 1), undefined);
  assert.equal(store.size, 0);
});

test("beyond the bound the oldest session is evicted", () => {
  const clock = new FakeClock();
  const store = new SessionStore({ clock, max: 3 });
  const ids = [0, 1, 2, 3].map(() => {
    clock.advance(1);
    return store.create("admin", 1).id;
  });
  assert.equal(store.size, 3);
  assert.equal(store.get(ids[0], 1), undefined);
  for (const id of ids.slice(1)) assert.ok(store.get(id, 1));
});
