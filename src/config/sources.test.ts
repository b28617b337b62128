/**
 * The LLM source view, and defect 15: the original's single-source keys (core.llm.base_url, model, api_key,
 * adapter) were listed and accepted but never read. They are no settings now (a set says what to use
 * instead), and rows an older config.db holds become source "default", which the daemon does read.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, test } from "node:test";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { ConfigError, ConfigRegistry } from "./registry.js";
import { MAX_SOURCES } from "./sources.js";

const open: ConfigRegistry[] = [];

function dbFile(): string {
  return path.join(tempDir("homeagent-sources-"), "config.db");
}

function openReg(file = dbFile()): ConfigRegistry {
  const reg = ConfigRegistry.open(file, { env: {} });
  open.push(reg);
  return reg;
}

afterEach(() => {
  for (const reg of open.splice(0)) reg.close();
});

function storeRaw(file: string, rows: Array<[string, string]>): void {
  openReg(file).close();
  const raw = new Database(file);
  const insert = raw.prepare("INSERT INTO config (key, value) VALUES (?, ?)");
  for (const [key, value] of rows) insert.run(key, value);
  raw.close();
}

test("the single-source keys are no settings: not listed, and a set says which key to use", () => {
  const reg = openReg();
  for (const field of ["base_url", "model", "api_key", "adapter"]) {
    const key = `core.llm.${field}`;
    assert.equal(reg.def(key), undefined);
    assert.throws(
      () => reg.set(key, "x"),
      (err: Error) =>
        err instanceof ConfigError &&
        err.code === "config_unknown_key" &&
        err.message ===
          `${key} is not a setting: LLM sources are configured one by one; ` +
            `use core.llm.sources.<name>.${field} (e.g. core.llm.sources.main.${field})`,
    );
  }
  assert.deepEqual(
    reg.list("core.llm.").filter((e) => /^core\.llm\.(base_url|model|api_key|adapter)$/.test(e.key)),
    [],
  );
  assert.deepEqual(reg.sourceNames(), []);
});

test("single-source rows of an older config.db become source default, which is read", () => {
  const file = dbFile();
  storeRaw(file, [
    ["core.llm.base_url", "https://api.deepseek.com"],
    ["core.llm.model", "deepseek-chat"],
    ["core.llm.api_key", "sk-legacy-000000001234"],
    ["core.llm.adapter", "deepseek"],
  ]);
  const reg = openReg(file);
  assert.deepEqual(reg.sourceNames(), ["default"]);
  assert.deepEqual(reg.source("default"), {
    name: "default",
    adapter: "deepseek",
    baseUrl: "https://api.deepseek.com",
    model: "deepseek-chat",
    apiKey: "sk-legacy-000000001234",
    priority: 0,
    maxConcurrent: 8,
    contextWindow: 0,
    thinkingEnabled: false,
  });
  assert.deepEqual(reg.startupNotes(), [
    'moved core.llm.base_url, core.llm.model, core.llm.api_key, core.llm.adapter into LLM source "default" ' +
      "(core.llm.sources.default.*): sources are configured one by one",
  ]);
  assert.deepEqual(reg.problems(), []);
  reg.close();
  assert.deepEqual(openReg(file).startupNotes(), [], "moved once");
});

test("single-source rows stay and are reported when source default already exists", () => {
  const file = dbFile();
  storeRaw(file, [
    ["core.llm.sources.default.base_url", "http://127.0.0.1:8080/v1"],
    ["core.llm.model", "other"],
  ]);
  const reg = openReg(file);
  assert.equal(reg.source("default").model, "");
  assert.match(reg.startupNotes()[0], /core\.llm\.model are no longer settings and were not moved/);
  assert.deepEqual(
    reg.problems().map((p) => p.message),
    ["config core.llm.model (in config.db) is not a setting; it is ignored"],
  );
});

test("sources are bounded in number and need a valid name", () => {
  const reg = openReg();
  for (let i = 0; i < MAX_SOURCES; i++) reg.set(`core.llm.sources.s${i}.model`, "m");
  assert.equal(reg.sourceNames().length, MAX_SOURCES);
  reg.set("core.llm.sources.s0.priority", "1");
  assert.throws(
    () => reg.set("core.llm.sources.one-too-many.model", "m"),
    (err: Error) =>
      err instanceof ConfigError && err.code === "config_limit" && /at most 32 LLM sources/.test(err.message),
  );
  assert.throws(() => reg.set("core.llm.sources.a b.model", "m"), /a name has letters, digits/);
  assert.throws(
    () => reg.source("missing"),
    (err: Error) => err instanceof ConfigError && err.code === "config_unknown_source",
  );
});

test("a leftover single-source key that holds a secret never shows it: not in problems, listed in secrets()", () => {
  const file = dbFile();
  storeRaw(file, [
    ["core.llm.sources.default.base_url", "http://127.0.0.1:8080/v1"],
    ["core.llm.api_key", "sk-LEGACYSECRETVALUE-9999"],
  ]);
  const reg = openReg(file);
  const [p] = reg.problems();
  assert.equal(p.key, "core.llm.api_key");
  assert.ok(!JSON.stringify(p).includes("LEGACYSECRET"), JSON.stringify(p));
  assert.ok(reg.secrets().includes("sk-LEGACYSECRETVALUE-9999"), "masked in logs too");
});
