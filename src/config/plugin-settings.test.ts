/**
 * Defect 16: plugin settings are config keys `plugin.<name>.<key>` in the one config table, seen the same
 * by config.get/list and by the plugin's SettingsAPI; names are validated, so `my-plugin` and `my_plugin`
 * never share storage; old `config_<name>` tables are migrated on open.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, test } from "node:test";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { MAX_OWN_KEYS, MAX_OWN_VALUE_LENGTH } from "./plugin-settings.js";
import { ConfigError, ConfigRegistry } from "./registry.js";

const open: ConfigRegistry[] = [];

function dbFile(): string {
  return path.join(tempDir("homeagent-plugin-settings-"), "config.db");
}

function openReg(file = dbFile()): ConfigRegistry {
  const reg = ConfigRegistry.open(file, { env: {} });
  open.push(reg);
  return reg;
}

afterEach(() => {
  for (const reg of open.splice(0)) reg.close();
});

test("my-plugin and my_plugin keep separate settings, visible through config.get and list", () => {
  const file = dbFile();
  const reg = openReg(file);
  const dash = reg.pluginSettings("my-plugin");
  const under = reg.pluginSettings("my_plugin");
  dash.set("k", "dash");
  under.set("k", "underscore");
  dash.set("nested.key", "n");
  assert.equal(dash.get("k"), "dash");
  assert.equal(under.get("k"), "underscore");
  assert.equal(reg.get("plugin.my-plugin.k"), "dash");
  assert.equal(reg.get("plugin.my_plugin.k"), "underscore");
  assert.deepEqual(dash.list(), { k: "dash", "nested.key": "n" });
  assert.deepEqual(
    reg.list("plugin.").map((e) => [e.key, e.value, e.category]),
    [
      ["plugin.my-plugin.k", "dash", "plugins"],
      ["plugin.my-plugin.nested.key", "n", "plugins"],
      ["plugin.my_plugin.k", "underscore", "plugins"],
    ],
  );
  reg.close();

  const raw = new Database(file, { readonly: true });
  try {
    const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    assert.deepEqual(
      tables.map((t) => (t as { name: string }).name),
      ["config", "disabled_plugins"],
      "one store: no per-plugin tables",
    );
  } finally {
    raw.close();
  }
  assert.equal(openReg(file).pluginSettings("my-plugin").get("k"), "dash");
});

test("plugin names are validated, not sanitised", () => {
  const reg = openReg();
  for (const bad of ["", "  ", "My-Plugin", "a.b", "../x", "-lead", "x".repeat(65), "sp ace"]) {
    assert.throws(
      () => reg.pluginSettings(bad),
      (err: Error) => err instanceof ConfigError && err.code === "config_bad_name",
      JSON.stringify(bad),
    );
  }
  assert.throws(() => reg.pluginSettings("ok").set("bad key", "v"), /invalid setting key "bad key"/);
  assert.throws(() => reg.pluginSettings("ok").set("", "v"), /invalid setting key ""/);
});

test("only declared plugin keys can be set from outside; declared ones are validated for everyone", () => {
  const reg = openReg();
  const own = reg.pluginSettings("timer");
  own.set("undeclared", "mine");
  assert.throws(
    () => reg.set("plugin.timer.undeclared", "x"),
    (err: Error) => err instanceof ConfigError && err.code === "config_unknown_key",
  );
  assert.throws(() => reg.set("plugin.nonexistent.k", "x"), /plugin nonexistent declares no such setting/);

  own.define([
    { key: "zone", default: "UTC", type: "string", description: "Default zone" },
    { key: "max_jobs", default: "10", type: "int", min: 1, max: 100, description: "Jobs at once" },
    { key: "token", default: "", type: "password", description: "API token" },
  ]);
  reg.set("plugin.timer.zone", "Asia/Shanghai");
  assert.equal(own.get("zone"), "Asia/Shanghai");
  assert.equal(own.get("max_jobs"), "10", "a declared key reads as its default until set");
  assert.throws(() => reg.set("plugin.timer.max_jobs", "0"), /is out of range \(allowed: 1 to 100\)/);
  assert.throws(() => own.set("max_jobs", "lots"), /is not an integer/);
  own.set("token", "tok-000000001234");
  const listed = new Map(reg.list("plugin.timer.").map((e) => [e.key, e]));
  assert.equal(listed.get("plugin.timer.token")?.value, "****1234");
  assert.equal(listed.get("plugin.timer.max_jobs")?.type, "int");
  assert.deepEqual(own.list(), {
    max_jobs: "10",
    token: "tok-000000001234",
    undeclared: "mine",
    zone: "Asia/Shanghai",
  });
});

test("a plugin's undeclared settings are bounded", () => {
  const file = dbFile();
  openReg(file).close();
  const raw = new Database(file);
  const insert = raw.prepare("INSERT INTO config (key, value) VALUES (?, ?)");
  raw.transaction(() => {
    for (let i = 0; i < MAX_OWN_KEYS; i++) insert.run(`plugin.busy.k${i}`, "v");
  })();
  raw.close();
  const reg = openReg(file);
  const busy = reg.pluginSettings("busy");
  busy.set("k0", "still fine: an existing key");
  assert.throws(
    () => busy.set("one-more", "v"),
    (err: Error) =>
      err instanceof ConfigError && err.code === "config_limit" && /already keeps 1024 settings/.test(err.message),
  );
  assert.throws(
    () => reg.pluginSettings("other").set("big", "x".repeat(MAX_OWN_VALUE_LENGTH + 1)),
    /is too long \(65537 characters, at most 65536\)/,
  );
  assert.throws(() => reg.pluginSettings("other").set("k".repeat(129), "v"), /invalid setting key/);
});

test("rows of old config_<name> tables move to plugin.<name>.* keys on open, once", () => {
  const file = dbFile();
  openReg(file).close();
  const raw = new Database(file);
  raw.exec(`
    CREATE TABLE config_weather (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO config_weather VALUES ('city', 'Paris'), ('units', 'metric');
    CREATE TABLE config_my_plugin (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO config_my_plugin VALUES ('token', 'old');
    INSERT INTO config (key, value) VALUES ('plugin.my_plugin.token', 'newer');
  `);
  raw.close();

  const reg = openReg(file);
  assert.equal(reg.get("plugin.weather.city"), "Paris");
  assert.equal(reg.pluginSettings("weather").get("units"), "metric");
  assert.equal(reg.get("plugin.my_plugin.token"), "newer", "a value already under the new key wins");
  assert.deepEqual(reg.startupNotes(), [
    "moved 2 plugin setting(s) from the old tables config_my_plugin, config_weather to plugin.<name>.* keys",
  ]);
  reg.close();
  const again = openReg(file);
  assert.deepEqual(again.startupNotes(), []);
  assert.equal(again.get("plugin.weather.city"), "Paris");
});

test("an undeclared plugin setting named like a credential is masked in lists and known to the log masker", () => {
  const file = dbFile();
  const raw = new Database(file);
  raw.exec("CREATE TABLE IF NOT EXISTS config (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  raw.prepare("INSERT INTO config (key, value) VALUES (?, ?)").run("plugin.foo.api_key", "sk-PLUGINSECRET-ABCDEF-4321");
  raw.close();
  const reg = openReg(file);
  const [entry] = reg.list("plugin.foo.");
  assert.deepEqual([entry.key, entry.value, entry.type], ["plugin.foo.api_key", "****4321", "password"]);
  assert.ok(reg.secrets().includes("sk-PLUGINSECRET-ABCDEF-4321"));
});

test("a plugin's label, description, unit and translations are bounded text, or its definitions are refused", () => {
  const reg = openReg();
  const settings = reg.pluginSettings("words");
  const base = { key: "k", default: "", type: "string" as const, description: "What it is." };
  const refused = (def: Record<string, unknown>) =>
    assert.throws(
      () => settings.define([{ ...base, ...def }]),
      (err) => err instanceof ConfigError && err.code === "config_bad_definition",
    );
  refused({ displayName: "x".repeat(201) });
  refused({ unit: 5 });
  refused({ translations: { zh: { displayName: "名字", description: "说".repeat(4001) } } });
  settings.define([
    {
      ...base,
      displayName: "Words",
      unit: "words",
      translations: { zh: { displayName: "词", description: "它是什么。" } },
    },
  ]);
  assert.equal(reg.defInfos("plugin.words.")[0]?.displayName, "Words");
});
