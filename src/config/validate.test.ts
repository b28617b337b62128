/**
 * Defect 2 ("one accepted setting bricks the daemon"): every definition, core, template and plugin-declared,
 * refuses hostile values with a readable reason and stores nothing; values already in config.db that break
 * their definitions are reported and served as defaults, never thrown.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, test } from "node:test";
import type { ConfigType } from "@homeagent/sdk";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { MAX_TIMER_MS } from "../util/time-limit.js";
import type { ConfigDef } from "./config-def.js";
import { CORE_DEFS } from "./defaults.js";
import { ConfigError, ConfigRegistry } from "./registry.js";
import { formatMs, maxLengthOf, rangeOf } from "./validate.js";

const open: ConfigRegistry[] = [];

function openReg(file = path.join(tempDir("homeagent-validate-"), "config.db")): ConfigRegistry {
  const reg = ConfigRegistry.open(file, { env: {} });
  open.push(reg);
  return reg;
}

afterEach(() => {
  for (const reg of open.splice(0)) reg.close();
});

/** Plugin-declared definitions of every type, with and without explicit bounds. */
const PLUGIN_DEFS: ConfigDef[] = [
  { key: "count", default: "3", type: "int", description: "", category: "demo" },
  { key: "bounded", default: "3", type: "int", min: 1, max: 10, description: "", category: "demo" },
  { key: "ratio", default: "0.5", type: "float", description: "", category: "demo" },
  { key: "on", default: "false", type: "bool", description: "", category: "demo" },
  { key: "every", default: "5m", type: "duration", description: "", category: "demo" },
  { key: "endpoint", default: "", type: "url", description: "", category: "demo" },
  { key: "token", default: "", type: "password", description: "", category: "demo" },
  { key: "mode", default: "a", type: "select", options: ["a", "b"], description: "", category: "demo" },
  { key: "note", default: "", type: "text", description: "", category: "demo" },
  { key: "label", default: "", type: "string", maxLength: 16, description: "", category: "demo" },
  {
    key: "servers",
    default: "{}",
    type: "json",
    schema: { type: "object", additionalProperties: { type: "object", required: ["command"] } },
    secretFields: ["env"],
    description: "",
    category: "demo",
  },
];

// "" is no value but a reset to the default (registry.test.ts), so it is not among them.
const NUMERIC_JUNK = ["abc", "NaN", "Infinity", "-Infinity", " 5", "5 ", "0x10", "1_000", "5abc"];
const DURATION_JUNK = ["abc", "30", "597h", "99999999999999999999h", "1e3s", "-5s", "1d", "Infinity", "NaN"];

/** Values that must be refused by `def`; every type must be listed, so a new type cannot go untested. */
function hostileValues(def: ConfigDef): string[] {
  const tooLong = "9".repeat(maxLengthOf(def) + 1);
  const common = [tooLong, `a\u0000b`, "x".repeat(1024 * 1024)];
  const [min, max] = rangeOf(def);
  const byType: Record<ConfigType, () => string[]> = {
    int: () => [
      ...NUMERIC_JUNK,
      "99999999999999999999",
      "-99999999999999999999",
      "1e308",
      "1.5",
      String(max + 1),
      String(min - 1),
    ],
    float: () => [...NUMERIC_JUNK, "1e308", "-1e308", "1e", "--1", String(max * 2 + 1), String(min * 2 - 1)],
    duration: () => [...DURATION_JUNK, formatMs(max + 1), ...(min > 0 ? [formatMs(min - 1) || "0"] : [])],
    url: () => [
      "file:///etc/passwd",
      "not a url",
      "javascript:alert(1)",
      "ftp://example.com/",
      "data:text/plain,hi",
      "http://user:secret@example.com/v1",
      "http://",
    ],
    bool: () => ["yes", "1", "TRUE", "true "],
    select: () => ["not-an-option", `${def.options?.[0]} `],
    password: () => ["sk-abc\ndef"],
    string: () => ["line1\nline2"],
    text: () => [],
    json: () => ["{", "{'a': 1}", '{"a": {}}', '{"a": {"command": "x"}} tail', "[1, 2]"],
  };
  const extra = def.check ? ["../../etc/passwd", "a b", "x".repeat(65)] : [];
  return [...common, ...byType[def.type](), ...extra];
}

/** Template defs get a concrete source name, plugin defs their full key. */
function concreteKey(def: ConfigDef): string {
  return def.key.replaceAll("*", "p");
}

test("every registered definition refuses hostile values, stores nothing and says why", () => {
  const file = path.join(tempDir("homeagent-validate-"), "config.db");
  const reg = openReg(file);
  reg.pluginSettings("demo").define(PLUGIN_DEFS);
  const changes: string[] = [];
  reg.onChange((key) => changes.push(key));
  const defs = [...CORE_DEFS, ...PLUGIN_DEFS.map((d) => ({ ...d, key: `plugin.demo.${d.key}` }))];
  assert.ok(
    defs.some((d) => d.key.includes("*")),
    "template defs are walked too",
  );
  let refused = 0;
  for (const listed of defs) {
    const key = concreteKey(listed);
    const def = reg.def(key);
    assert.ok(def, `${key} has a definition`);
    if (def.type === "int" || def.type === "float" || def.type === "duration") {
      const [min, max] = rangeOf(def);
      assert.ok(Number.isFinite(min) && Number.isFinite(max), `${key} is bounded`);
    }
    if (def.type === "duration") assert.ok(rangeOf(def)[1] <= MAX_TIMER_MS, `${key} fits a timer`);
    for (const value of hostileValues(def)) {
      assert.throws(
        () => reg.set(key, value),
        (err: Error) => {
          assert.ok(err instanceof ConfigError, `${key} = ${JSON.stringify(value)}: ${err}`);
          assert.equal(err.code, "config_invalid", err.message);
          assert.match(err.message, new RegExp(`^config ${key.replaceAll(".", "\\.")}: `));
          assert.match(
            err.message,
            / (is not|is out of range|is too long|must|contains control characters|has no host)\b.*; nothing was changed$/,
          );
          assert.ok(err.message.length < 400, `a readable reason, not the whole value: ${err.message.length}`);
          return true;
        },
        `${key} = ${JSON.stringify(value.slice(0, 40))} is refused`,
      );
      refused++;
      assert.equal(reg.get(key), def.default, `${key} unchanged`);
    }
  }
  assert.deepEqual(changes, [], "no listener saw a refused value");
  reg.close();
  const raw = new Database(file, { readonly: true });
  try {
    assert.deepEqual(raw.prepare("SELECT key FROM config").all(), [], "nothing was stored");
  } finally {
    raw.close();
  }
  assert.ok(refused > 500, `walked ${refused} hostile values`);
});

test("values from the issue are refused with their reasons; their neighbours in range are accepted", () => {
  const reg = openReg();
  const cases: Array<[string, string, RegExp]> = [
    ["core.llm.sources.p.priority", "99999999999999999999", /is out of range \(allowed: -1000000 to 1000000\)/],
    ["core.llm.first_byte_timeout", "597h", /a timer holds at most 2147483647 ms/],
    ["core.llm.first_byte_timeout", "2h", /is out of range \(allowed: 0 to 1h\)/],
    ["core.llm.first_byte_timeout", "1ns", /must be 0 \(no limit\) or at least 1s/],
    ["core.llm.first_byte_timeout", "900ms", /must be 0 \(no limit\) or at least 1s/],
    ["core.agent.max_tool_turns", "-5", /is out of range \(allowed: 1 to 1000\)/],
    ["core.agent.max_tool_turns", "0", /is out of range/],
    ["core.llm.temperature", "abc", /is not a number/],
    ["core.llm.temperature", "-50", /is out of range \(allowed: 0 to 2\)/],
    ["core.llm.temperature", "1e308", /is out of range/],
    ["core.llm.sources.p.base_url", "file:///etc/passwd", /must start with http:\/\/ or https:\/\//],
    ["core.llm.sources.p.base_url", "not a url", /is not a URL/],
    ["core.llm.sources.p.base_url", "javascript:alert(1)", /must start with http/],
    ["core.llm.sources.p.max_concurrent", "-1", /is out of range/],
    ["core.llm.sources.p.context_window", "-1", /is out of range/],
    ["core.embedding.http.batch_size", "-64", /is out of range/],
    ["core.embedding.http.dimension", "-3", /is out of range/],
    ["core.agent.max_context_size", "99999999", /is out of range/],
    ["core.llm.max_tokens", "99999999999", /is out of range/],
    ["core.llm.sources.p.adapter", "../../etc/passwd", /must be a name/],
    ["core.llm.sources.p.api_key", "x".repeat(5000), /\(secret value\)|is too long/],
  ];
  for (const [key, value, reason] of cases) {
    assert.throws(() => reg.set(key, value), reason, `${key} = ${value}`);
  }
  // A secret is never echoed back in the refusal.
  assert.throws(
    () => reg.set("core.llm.sources.p.api_key", `sk-${"z".repeat(5000)}`),
    (err: Error) => !err.message.includes("sk-") && /"\*\*\*\*zzzz" is too long/.test(err.message),
  );
  reg.set("core.llm.sources.p.priority", "-1000000");
  reg.set("core.llm.first_byte_timeout", "1h");
  reg.set("core.llm.temperature", "1.25");
  reg.set("core.llm.sources.p.base_url", "http://127.0.0.1:8080/v1");
  assert.equal(reg.source("p").priority, -1000000);
  assert.equal(reg.getDuration("core.llm.first_byte_timeout"), 3_600_000);
  assert.equal(reg.getNumber("core.llm.temperature"), 1.25);
});

test("bad values written straight into config.db are reported, served as defaults and never thrown", () => {
  const file = path.join(tempDir("homeagent-validate-"), "config.db");
  openReg(file).close();
  const bad: Array<[string, string]> = [
    ["core.llm.sources.p.base_url", "http://127.0.0.1:1/v1"],
    ["core.llm.sources.p.priority", "99999999999999999999"],
    ["core.llm.sources.p.max_concurrent", "-4"],
    ["core.llm.sources.p.thinking_enabled", "maybe"],
    ["core.llm.sources.q.base_url", "file:///etc/passwd"],
    ["core.llm.sources.q.api_key", "sk-secret-value-1234\n"],
    ["core.llm.first_byte_timeout", "597h"],
    ["core.agent.tool_timeout", "soon"],
    ["core.knowledge.path", "relative/dir"],
    ["core.agent.max_tool_turns", "-5"],
    ["core.agent.max_context_size", "lots"],
    ["core.llm.temperature", "1e308"],
    ["core.llm.thinking_enabled", "maybe"],
    ["core.embedding.http.batch_size", "0"],
    ["core.daemon.log_level", "verbose"],
    ["core.agent.system_prompt", "x".repeat(70 * 1024)],
    ["core.bogus.key", "1"],
    ["webui.listen_addr", ":8080"],
  ];
  const raw = new Database(file);
  const insert = raw.prepare("INSERT INTO config (key, value) VALUES (?, ?)");
  for (const [key, value] of bad) insert.run(key, value);
  raw.close();

  const reg = openReg(file);
  assert.equal(reg.getInt("core.llm.sources.p.priority"), 0);
  assert.equal(reg.getDuration("core.llm.first_byte_timeout"), 60_000);
  assert.equal(reg.getDuration("core.agent.tool_timeout"), 10 * 60_000);
  assert.equal(reg.get("core.knowledge.path"), "");
  assert.equal(reg.getInt("core.agent.max_tool_turns"), 10);
  assert.equal(reg.getInt("core.agent.max_context_size"), 30);
  assert.equal(reg.getNumber("core.llm.temperature"), 0.7);
  assert.equal(reg.getBool("core.llm.thinking_enabled"), false);
  assert.equal(reg.get("core.daemon.log_level"), "info");
  assert.equal(reg.get("core.agent.system_prompt"), "");
  assert.equal(reg.get("core.embedding.http.batch_size"), "64");
  assert.deepEqual(reg.sourceNames(), ["p", "q"]);
  assert.deepEqual(
    [reg.source("p").priority, reg.source("p").maxConcurrent, reg.source("p").thinkingEnabled],
    [0, 8, false],
  );
  assert.equal(reg.source("q").baseUrl, "", "the file: URL is not in effect");
  assert.equal(reg.source("q").apiKey, "");
  assert.equal(reg.list("core.bogus").length, 0, "a stored key that is no setting is not listed");
  assert.equal(new Map(reg.list().map((e) => [e.key, e.value])).get("core.agent.max_tool_turns"), "10");

  const problems = new Map(reg.problems().map((p) => [p.key, p]));
  assert.deepEqual(
    [...problems.keys()].sort(),
    bad
      .map(([key]) => key)
      .filter((key) => key !== "core.llm.sources.p.base_url")
      .sort(),
  );
  const priority = problems.get("core.llm.sources.p.priority");
  assert.equal(priority?.origin, "config.db");
  assert.equal(priority?.default, "0");
  assert.equal(
    priority?.message,
    'config core.llm.sources.p.priority = "99999999999999999999" (in config.db) is out of range ' +
      '(allowed: -1000000 to 1000000); using the default "0" until it is fixed (set core.llm.sources.p.priority <value>)',
  );
  const key = problems.get("core.llm.sources.q.api_key");
  assert.equal(key?.value, '"****234\\n"', "a secret shows at most its last four characters");
  assert.ok(!key?.message.includes("sk-secret"));
  assert.match(problems.get("core.agent.system_prompt")?.message ?? "", /= "x{80}…" \(in config\.db\) is too long/);
  assert.equal(
    problems.get("webui.listen_addr")?.message,
    "config webui.listen_addr (in config.db) is not a setting; it is ignored",
  );
  assert.equal(problems.get("webui.listen_addr")?.default, undefined);
});

test("a bad value from the environment is reported with its variable and not used", () => {
  const reg = ConfigRegistry.open(path.join(tempDir("homeagent-validate-"), "config.db"), {
    env: { HOMEAGENT_LLM_BASE_URL: "javascript:alert(1)", HOMEAGENT_LLM_ADAPTER: "../x" },
  });
  open.push(reg);
  assert.equal(reg.source("env").baseUrl, "");
  assert.equal(reg.source("env").adapter, "openai");
  assert.deepEqual(
    reg.problems().map((p) => [p.key, p.origin]),
    [
      ["core.llm.sources.env.base_url", "HOMEAGENT_LLM_BASE_URL"],
      ["core.llm.sources.env.adapter", "HOMEAGENT_LLM_ADAPTER"],
    ],
  );
});

test("a definition registered later turns an unread stored value into a checked one", () => {
  const file = path.join(tempDir("homeagent-validate-"), "config.db");
  openReg(file).pluginSettings("late").set("limit", "-7");
  const reg = openReg(file);
  assert.equal(reg.get("plugin.late.limit"), "-7", "undeclared: the plugin's own value as stored");
  assert.deepEqual(reg.problems(), []);
  reg.pluginSettings("late").define([{ key: "limit", default: "5", type: "int", min: 1, max: 9, description: "" }]);
  assert.equal(reg.get("plugin.late.limit"), "5");
  assert.equal(reg.getInt("plugin.late.limit"), 5);
  assert.deepEqual(
    reg.problems().map((p) => p.key),
    ["plugin.late.limit"],
  );
});

test("a plugin's pattern is checked on every write: the whole value must match; '' resets; a bad pattern is refused", () => {
  const reg = openReg();
  const settings = reg.pluginSettings("shaped");
  settings.define([
    { key: "addr", default: "", type: "string", pattern: "[a-z]+:\\d+", placeholder: "host:80", description: "" },
  ]);
  settings.set("addr", "host:80");
  for (const bad of ["host", "host:80 ", "xhost:80x", "HOST:80", "host:80:80"]) {
    assert.throws(
      () => settings.set("addr", bad),
      /plugin\.shaped\.addr: .* is not in the expected form \(e\.g\. host:80\)/,
    );
  }
  assert.equal(reg.get("plugin.shaped.addr"), "host:80");
  settings.set("addr", "");
  assert.throws(
    () => settings.define([{ key: "broken", default: "", type: "string", pattern: "(", description: "" }]),
    /pattern "\(" is not a valid regular expression/,
  );
});

test("core.llm.first_content_timeout and core.agent.max_tool_calls_per_round are checked on write", () => {
  const reg = openReg();
  assert.equal(reg.getDuration("core.llm.first_content_timeout"), 5 * 60_000);
  assert.equal(reg.getInt("core.agent.max_tool_calls_per_round"), 32);
  const cases: Array<[string, string, RegExp]> = [
    ["core.llm.first_content_timeout", "900ms", /must be 0 \(no limit\) or at least 1s/],
    ["core.llm.first_content_timeout", "2h", /is out of range \(allowed: 0 to 1h\)/],
    ["core.llm.first_content_timeout", "soon", /core\.llm\.first_content_timeout/],
    ["core.agent.max_tool_calls_per_round", "0", /is out of range \(allowed: 1 to 1000\)/],
    ["core.agent.max_tool_calls_per_round", "20000", /is out of range \(allowed: 1 to 1000\)/],
  ];
  for (const [key, value, reason] of cases) assert.throws(() => reg.set(key, value), reason, `${key} = ${value}`);
  reg.set("core.llm.first_content_timeout", "0");
  reg.set("core.agent.max_tool_calls_per_round", "1");
  assert.equal(reg.getDuration("core.llm.first_content_timeout"), 0);
  assert.equal(reg.getInt("core.agent.max_tool_calls_per_round"), 1);
});
