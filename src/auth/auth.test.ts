/** The auth module end to end over a real config.db: credentials, their file, hashes only, reset, sessions. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { FakeClock } from "../../test/fixtures/fake-clock.js";
import { nodeArgs } from "../../test/fixtures/node-entry.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { prepareDataDir } from "../daemon/paths.js";
import { Auth, type AuthError } from "./auth.js";

const run = promisify(execFile);

function openAuth(env: Record<string, string | undefined> = {}, clock?: FakeClock, dir = tempDir("homeagent-auth-")) {
  const { paths } = prepareDataDir(dir);
  return { auth: Auth.open({ dataDir: paths.root, configDb: paths.configDb, env, clock }), paths };
}

/** The generated values, as the user reads them from the credentials file. */
function readCredentials(file: string): { password: string; apiKey: string } {
  const text = readFileSync(file, "utf8");
  const value = (name: string) => text.match(new RegExp(`^${name}: (.*)$`, "m"))?.[1] ?? "";
  return { password: value("password"), apiKey: value("api_key") };
}

/** config.db and its WAL as bytes, for looking for a secret anywhere in them. */
function dbBytes(configDb: string): string {
  return [configDb, `${configDb}-wal`]
    .filter(existsSync)
    .map((f) => readFileSync(f).toString("latin1"))
    .join("");
}

test("first start writes a 0600 credentials file and keeps only hashes in config.db", async () => {
  const { auth, paths } = openAuth();
  const result = await auth.ensureCredentials();
  assert.equal(result.created, true);
  assert.equal(result.file, join(paths.root, "credentials"));
  assert.equal(statSync(result.file).mode & 0o777, 0o600);
  const { password, apiKey } = readCredentials(result.file);
  assert.ok(password.length >= 24, password);
  assert.match(apiKey, /^ha_[A-Za-z0-9_-]{43}$/);
  assert.match(readFileSync(result.file, "utf8"), /homed --reset-credentials/);
  assert.equal(await auth.verifyPassword("admin", password), true);
  assert.equal(auth.verifyApiKey(apiKey), true);
  const bytes = dbBytes(paths.configDb);
  auth.close();
  for (const secret of [password, apiKey]) {
    assert.equal(bytes.includes(secret), false, "a plain secret is in config.db (open)");
    assert.equal(dbBytes(paths.configDb).includes(secret), false, "a plain secret is in config.db (closed)");
  }
  assert.match(bytes, /scrypt\$32768\$8\$1\$/);

  const again = openAuth({}, undefined, paths.root);
  assert.deepEqual(await again.auth.ensureCredentials(), { file: result.file, created: false });
  assert.equal(again.auth.verifyApiKey(apiKey), true, "the second start keeps the credentials");
  again.auth.close();
});

test("HOMEAGENT_ADMIN_PASSWORD and HOMEAGENT_API_KEY are used and not copied to disk", async () => {
  const env = { HOMEAGENT_ADMIN_PASSWORD: "correct horse battery", HOMEAGENT_API_KEY: "env-key-0123456789" };
  const { auth, paths } = openAuth(env);
  const { file } = await auth.ensureCredentials();
  assert.equal(await auth.verifyPassword("admin", env.HOMEAGENT_ADMIN_PASSWORD), true);
  assert.equal(auth.verifyApiKey(env.HOMEAGENT_API_KEY), true);
  const text = readFileSync(file, "utf8");
  assert.match(text, /password: \(the value of HOMEAGENT_ADMIN_PASSWORD\)/);
  assert.equal(text.includes(env.HOMEAGENT_ADMIN_PASSWORD) || text.includes(env.HOMEAGENT_API_KEY), false);
  auth.close();
  assert.equal(dbBytes(paths.configDb).includes(env.HOMEAGENT_API_KEY), false);
});

test("a variable set after the first start wins at the next start", async () => {
  const { auth, paths } = openAuth();
  const { file } = await auth.ensureCredentials();
  const generated = readCredentials(file);
  auth.close();
  const later = openAuth({ HOMEAGENT_ADMIN_PASSWORD: "a new password here" }, undefined, paths.root);
  assert.equal((await later.auth.ensureCredentials()).created, false);
  assert.equal(await later.auth.verifyPassword("admin", "a new password here"), true);
  assert.equal(await later.auth.verifyPassword("admin", generated.password), false);
  assert.equal(later.auth.verifyApiKey(generated.apiKey), true, "the generated key stays");
  assert.deepEqual(readCredentials(file), {
    password: "(the value of HOMEAGENT_ADMIN_PASSWORD)",
    apiKey: generated.apiKey,
  });
  later.auth.close();
});

test("wrong passwords, user names and keys are refused", async () => {
  const { auth } = openAuth();
  const { file } = await auth.ensureCredentials();
  const { password, apiKey } = readCredentials(file);
  assert.equal(await auth.verifyPassword("admin", `${password}x`), false);
  assert.equal(await auth.verifyPassword("root", password), false);
  assert.equal(await auth.verifyPassword("admin", "x".repeat(5000)), false);
  assert.equal(auth.verifyApiKey(apiKey.slice(0, -1)), false);
  assert.equal(auth.verifyApiKey(""), false);
  await assert.rejects(auth.login("admin", "nope", "10.0.0.1"), (err: AuthError) => err.code === "auth_failed");
  auth.close();
});

test("reset makes the old password, key and sessions fail", async () => {
  const { auth } = openAuth();
  const { file } = await auth.ensureCredentials();
  const old = readCredentials(file);
  const session = await auth.login("admin", old.password, "127.0.0.1");
  assert.equal(await auth.resetCredentials(), file);
  const fresh = readCredentials(file);
  assert.notEqual(fresh.password, old.password);
  assert.equal(await auth.verifyPassword("admin", old.password), false);
  assert.equal(auth.verifyApiKey(old.apiKey), false);
  assert.equal(auth.verifySession(session.id), undefined);
  assert.equal(await auth.verifyPassword("admin", fresh.password), true);
  assert.equal(auth.verifyApiKey(fresh.apiKey), true);
  auth.close();
});

test("a session lives 24 h, has a CSRF token, and ends at logout", async () => {
  const clock = new FakeClock();
  const { auth } = openAuth({}, clock);
  const { password } = readCredentials((await auth.ensureCredentials()).file);
  const session = await auth.login("admin", password, "127.0.0.1");
  assert.equal(auth.verifySession(session.id)?.user, "admin");
  assert.equal(auth.verifyCsrf(session, session.csrf), true);
  assert.equal(auth.verifyCsrf(session, `${session.csrf}x`), false);
  clock.advance(24 * 60 * 60 * 1000 - 1);
  assert.ok(auth.verifySession(session.id));
  clock.advance(1);
  assert.equal(auth.verifySession(session.id), undefined);

  const other = await auth.login("admin", password, "127.0.0.1");
  assert.equal(auth.logout(other.id), true);
  assert.equal(auth.verifySession(other.id), undefined);
  assert.equal(auth.logout(other.id), false);
  auth.close();
});

test("logins are rate-limited per address and recover with time", async () => {
  const clock = new FakeClock();
  const { auth } = openAuth({}, clock);
  const { password } = readCredentials((await auth.ensureCredentials()).file);
  for (let i = 0; i < 5; i++) {
    await assert.rejects(auth.login("admin", "wrong", "192.0.2.1"), (err: AuthError) => err.code === "auth_failed");
  }
  await assert.rejects(auth.login("admin", password, "192.0.2.1"), (err: AuthError) => {
    assert.equal(err.code, "auth_rate_limited");
    assert.equal(err.retryAfterS, 12);
    assert.match(err.message, /try again in 12 s/);
    return true;
  });
  assert.ok(await auth.login("admin", password, "192.0.2.2"), "another address is not limited");
  clock.advance(12_000);
  assert.ok(await auth.login("admin", password, "192.0.2.1"));
  auth.close();
});

test("homed --reset-credentials replaces the credentials and prints the file's path", async () => {
  const { auth, paths } = openAuth();
  const { file } = await auth.ensureCredentials();
  const old = readCredentials(file);
  const { stdout } = await run(
    process.execPath,
    nodeArgs("src/bin/homed.ts", "--data", paths.root, "--reset-credentials"),
    { timeout: 30_000 },
  );
  assert.match(stdout, new RegExp(file.replaceAll("/", "\\/")));
  const fresh = readCredentials(file);
  assert.notEqual(fresh.apiKey, old.apiKey);
  // The open instance sees the reset at once: it re-reads the hashes on every check.
  assert.equal(auth.verifyApiKey(old.apiKey), false);
  assert.equal(auth.verifyApiKey(fresh.apiKey), true);
  assert.equal(await auth.verifyPassword("admin", fresh.password), true);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  auth.close();
});
