/** PluginHost.auth (what sdk.auth serves): the daemon's Auth in the SDK's shapes, sessions looked up by id. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeClock } from "../../test/fixtures/fake-clock.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { Auth, AuthError } from "../auth/auth.js";
import { prepareDataDir } from "../daemon/paths.js";
import { authHost } from "./auth-host.js";

const PASSWORD = "correct horse battery staple";
const KEY = "ha_test-key-0123456789abcdefghijklmnopqrstuvwxyz";

async function setup(clock = new FakeClock(1_000_000)) {
  const { paths } = prepareDataDir(tempDir("ha-auth-host-"));
  const env = { HOMEAGENT_ADMIN_PASSWORD: PASSWORD, HOMEAGENT_API_KEY: KEY };
  const auth = Auth.open({ dataDir: paths.root, configDb: paths.configDb, env, clock, loginBurst: 2 });
  await auth.ensureCredentials();
  return { auth, host: authHost(auth), clock };
}

test("login opens a session that session(id) finds by its id alone; logout ends it", async () => {
  const { auth, host } = await setup();
  try {
    const session = await host.login("admin", PASSWORD, "127.0.0.1");
    assert.deepEqual(Object.keys(session).sort(), ["createdAt", "csrf", "expiresAt", "id", "user"]);
    assert.equal(session.user, "admin");
    assert.equal(session.expiresAt - session.createdAt, 24 * 60 * 60 * 1000);
    assert.deepEqual(host.session(session.id), session);
    assert.equal(host.session("not-a-session"), null);
    assert.equal(host.logout(session.id), true);
    assert.equal(host.session(session.id), null);
    assert.equal(host.logout(session.id), false);
  } finally {
    auth.close();
  }
});

test("verifyCsrf: only the token of that live session; false for an unknown or ended one", async () => {
  const { auth, host, clock } = await setup();
  try {
    const one = await host.login("admin", PASSWORD, "127.0.0.1");
    const two = await host.login("admin", PASSWORD, "127.0.0.2");
    assert.equal(host.verifyCsrf(one.id, one.csrf), true);
    assert.equal(host.verifyCsrf(one.id, two.csrf), false, "another session's token");
    assert.equal(host.verifyCsrf(one.id, ""), false);
    assert.equal(host.verifyCsrf("unknown", one.csrf), false);
    clock.advance(24 * 60 * 60 * 1000 + 1);
    assert.equal(host.verifyCsrf(one.id, one.csrf), false, "expired");
    assert.equal(host.session(two.id), null);
  } finally {
    auth.close();
  }
});

test("refusals keep their code and retryAfterS; the API key is checked", async () => {
  const { auth, host } = await setup();
  try {
    await assert.rejects(
      host.login("admin", "wrong", "10.0.0.1"),
      (err: Error) => err instanceof AuthError && err.code === "auth_failed",
    );
    await assert.rejects(host.login("admin", "wrong", "10.0.0.1"));
    await assert.rejects(
      host.login("admin", PASSWORD, "10.0.0.1"),
      (err: Error) => err instanceof AuthError && err.code === "auth_rate_limited" && (err.retryAfterS ?? 0) >= 1,
    );
    assert.equal(host.verifyApiKey(KEY), true);
    assert.equal(host.verifyApiKey(`${KEY}x`), false);
    assert.equal(host.verifyApiKey(""), false);
  } finally {
    auth.close();
  }
});
