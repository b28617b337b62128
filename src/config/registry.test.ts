/** The config center's facade: defaults, persistence, typed getters, listing, the env overlay, listeners. */
import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, test } from "node:test";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { HomeAgentError } from "../util/errors.js";
import { ConfigError, ConfigRegistry } from "./registry.js";

const open: ConfigRegistry[] = [];

function tmpDb(): string {
  // A nested path also checks that open() creates missing directories.
  return path.join(tempDir("homeagent-config-"), "data", "config.db");
}

function openReg(file = tmpDb(), env: Record<string, string | undefined> = {}): ConfigRegistry {
  const reg = ConfigRegistry.open(file, { env });
  open.push(reg);
  return reg;
}

afterEach(() => {
  for (const reg of open.splice(0)) {
    try {
      reg.close();
    } catch {
      // closed by the test itself
    }
  }
});

test("defaults come from the core definitions", () => {
  const reg = openReg();
  assert.equal(reg.getDuration("core.plugin.stage_timeout"), 5_000);
  assert.equal(reg.getDuration("core.llm.call_timeout"), 10 * 60_000);
  assert.equal(reg.get("core.daemon.log_level"), "info");
  assert.equal(reg.get("core.daemon.api_key"), "");
  assert.equal(reg.getNumber("core.llm.temperature"), 0.7);
  assert.equal(reg.getInt("core.llm.max_tokens"), 4096);
  assert.equal(reg.getBool("core.llm.thinking_enabled"), false);
  assert.equal(reg.getDuration("core.llm.retry_delay"), 2_000);
  assert.equal(reg.getInt("core.agent.max_tool_turns"), 10);
  assert.equal(reg.getInt("core.agent.max_context_size"), 30);
  assert.equal(reg.getDuration("core.agent.tool_timeout"), 10 * 60_000);
  assert.equal(reg.get("core.agent.system_prompt"), "");
  assert.equal(reg.get("core.nothing.here"), undefined);
  assert.throws(() => reg.getInt("core.nothing.here"), /core\.nothing\.here is not set/);
});

test("no LLM source is seeded", () => {
  const reg = openReg();
  assert.deepEqual(reg.sourceNames(), []);
  assert.equal(reg.list("core.llm.sources.").length, 0);
  assert.throws(() => reg.source("deepseek"), /no LLM source named deepseek/);
});

test("set values survive close and reopen", () => {
  const file = tmpDb();
  const reg = openReg(file);
  reg.set("core.agent.max_tool_turns", "25");
  reg.set("core.agent.tool_timeout", "1h30m");
  reg.pluginSettings("timer").set("default_zone", "UTC");
  reg.close();

  const again = openReg(file);
  assert.equal(again.getInt("core.agent.max_tool_turns"), 25);
  assert.equal(again.getDuration("core.agent.tool_timeout"), 90 * 60_000);
  assert.equal(again.get("plugin.timer.default_zone"), "UTC");
  again.unset("core.agent.max_tool_turns");
  assert.equal(again.getInt("core.agent.max_tool_turns"), 10);
});

test("the database is in WAL mode", () => {
  const file = tmpDb();
  openReg(file).set("core.daemon.log_level", "debug");
  const raw = new Database(file, { readonly: true });
  try {
    assert.equal(raw.pragma("journal_mode", { simple: true }), "wal");
    // The write is visible to another connection at once: nothing waits in a debounce buffer.
    assert.deepEqual(raw.prepare("SELECT value FROM config WHERE key = ?").get("core.daemon.log_level"), {
      value: "debug",
    });
  } finally {
    raw.close();
  }
});

test("set validates values by type and names the key", () => {
  const reg = openReg();
  const cases: Array<[string, string, RegExp]> = [
    ["core.agent.max_tool_turns", "ten", /core\.agent\.max_tool_turns: "ten" is not an integer/],
    ["core.llm.thinking_enabled", "yes", /core\.llm\.thinking_enabled: "yes" must be true or false/],
    ["core.agent.tool_timeout", "abc", /core\.agent\.tool_timeout: "abc" is not valid: invalid duration/],
    ["core.agent.tool_timeout", "-5m", /"-5m" is out of range \(allowed: 1s to 24h\)/],
    ["core.daemon.log_level", "verbose", /must be one of debug, info, warn, error/],
    ["core.llm.sources.local.priority", "high", /core\.llm\.sources\.local\.priority: "high" is not an integer/],
  ];
  for (const [key, value, message] of cases) {
    assert.throws(
      () => reg.set(key, value),
      (err: Error) =>
        err instanceof ConfigError &&
        err instanceof HomeAgentError &&
        err.code === "config_invalid" &&
        message.test(err.message),
    );
    assert.equal(reg.get(key), reg.def(key)?.default, `${key} unchanged`);
  }
  reg.set("core.daemon.log_level", "warn");
  assert.equal(reg.get("core.daemon.log_level"), "warn");
});

test("unknown keys are refused with a hint; undeclared plugin keys cannot be set from outside", () => {
  const reg = openReg();
  const refused = (key: string, message: RegExp) =>
    assert.throws(
      () => reg.set(key, "5"),
      (err: Error) => err instanceof ConfigError && err.code === "config_unknown_key" && message.test(err.message),
      key,
    );
  refused("core.agent.max_tool_turn", /unknown config key core\.agent\.max_tool_turn; list the known keys/);
  refused("core.llm.sources.a.b.model", /a source's keys are core\.llm\.sources\.<name>\./);
  refused("core.llm.sources.bad name.model", /a name has letters, digits/);
  refused("webui.listen_addr", /keys live under core\.\* or plugin\.<name>\.\*/);
  refused("plugin.timer", /unknown config key/);
  refused("plugin.nonexistent.anything", /plugin nonexistent declares no such setting/);
  refused(`core.${"x".repeat(100_000)}`, /unknown config key core\.x+…;/);
  assert.deepEqual(reg.list("plugin."), []);
});

test("template defs cover every source name", () => {
  const reg = openReg();
  assert.equal(reg.def("core.llm.sources.local.max_concurrent")?.key, "core.llm.sources.*.max_concurrent");
  assert.equal(reg.def("core.llm.sources..model"), undefined);
  assert.equal(reg.def("core.llm.sources.a.b.model"), undefined);

  reg.set("core.llm.sources.local.base_url", "http://127.0.0.1:11434/v1");
  reg.set("core.llm.sources.local.priority", "5");
  reg.set("core.llm.sources.backup.model", "m2");
  assert.deepEqual(reg.sourceNames(), ["backup", "local"]);
  assert.deepEqual(reg.source("local"), {
    name: "local",
    adapter: "openai",
    baseUrl: "http://127.0.0.1:11434/v1",
    model: "",
    apiKey: "",
    priority: 5,
    maxConcurrent: 8,
    contextWindow: 0,
    thinkingEnabled: false,
  });
  // Templates themselves are not settings; only real keys are listed.
  assert.deepEqual(
    reg.list("core.llm.sources.").map((e) => e.key),
    ["core.llm.sources.backup.model", "core.llm.sources.local.base_url", "core.llm.sources.local.priority"],
  );
});

test("list masks passwords, sorts, filters and hides hidden defs", () => {
  const reg = openReg();
  reg.registerDefs([
    { key: "plugin.demo.secret_state", default: "x", type: "string", category: "demo", description: "", hidden: true },
    {
      key: "plugin.demo.mode",
      default: "a",
      type: "select",
      options: ["a", "b"],
      category: "demo",
      description: "Mode",
    },
  ]);
  reg.set("core.llm.sources.main.api_key", "sk-1234567890abcdef");
  reg.set("core.embedding.http.api_key", "short");
  reg.pluginSettings("demo").set("note", "hello");

  const all = reg.list();
  assert.deepEqual(
    all.map((e) => e.key),
    [...all.map((e) => e.key)].sort(),
  );
  const byKey = new Map(all.map((e) => [e.key, e]));
  // At most the last four characters of a secret are shown (defect 18: it used to be the first 4 + last 4).
  assert.equal(byKey.get("core.llm.sources.main.api_key")?.value, "****cdef");
  assert.equal(byKey.get("core.llm.sources.main.api_key")?.type, "password");
  assert.equal(byKey.get("core.embedding.http.api_key")?.value, "****");
  assert.equal(byKey.get("core.daemon.api_key")?.value, "");
  assert.equal(byKey.get("plugin.demo.note")?.category, "plugins");
  assert.equal(byKey.has("plugin.demo.secret_state"), false);
  assert.equal(byKey.has("core.llm.sources.*.adapter"), false);
  assert.deepEqual(byKey.get("core.daemon.log_level"), {
    key: "core.daemon.log_level",
    value: "info",
    type: "select",
    description: "Lowest level written to the log.",
    category: "system",
  });
  assert.deepEqual(
    reg.list("plugin.demo.").map((e) => [e.key, e.value]),
    [
      ["plugin.demo.mode", "a"],
      ["plugin.demo.note", "hello"],
    ],
  );
  assert.throws(() => reg.set("plugin.demo.mode", "c"), /must be one of a, b/);
  // The unmasked value is still what consumers read.
  assert.equal(reg.source("main").apiKey, "sk-1234567890abcdef");
  // What the log masks: every password value in effect, core, source and plugin alike.
  reg.pluginSettings("demo").define([{ key: "token", default: "", type: "password", description: "" }]);
  reg.pluginSettings("demo").set("token", "plugin-token-5678");
  assert.deepEqual(reg.secrets().sort(), ["plugin-token-5678", "short", "sk-1234567890abcdef"]);
});

test("environment overlay defines the env source and wins over stored values", () => {
  const file = tmpDb();
  const plain = openReg(file);
  plain.set("core.llm.sources.env.base_url", "http://stored.example/v1");
  plain.set("core.llm.sources.env.model", "stored-model");
  plain.set("core.llm.sources.env.priority", "3");
  plain.set("core.daemon.api_key", "stored-api-key");
  plain.close();

  const reg = openReg(file, {
    HOMEAGENT_LLM_BASE_URL: "http://env.example/v1",
    HOMEAGENT_LLM_API_KEY: "sk-envenvenvenv1234",
    HOMEAGENT_LLM_MODEL: "env-model",
    HOMEAGENT_API_KEY: "env-api-key-0001",
  });
  assert.deepEqual(reg.sourceNames(), ["env"]);
  assert.deepEqual(reg.source("env"), {
    name: "env",
    adapter: "openai",
    baseUrl: "http://env.example/v1",
    model: "env-model",
    apiKey: "sk-envenvenvenv1234",
    priority: 3,
    maxConcurrent: 8,
    contextWindow: 0,
    thinkingEnabled: false,
  });
  assert.equal(reg.get("core.daemon.api_key"), "env-api-key-0001");
  assert.throws(() => reg.set("core.daemon.api_key", "other"), /environment variable HOMEAGENT_API_KEY/);
  assert.throws(() => reg.set("core.llm.sources.env.model", "x"), /environment variable HOMEAGENT_LLM_MODEL/);
  const listed = new Map(reg.list("core.").map((e) => [e.key, e.value]));
  assert.equal(listed.get("core.llm.sources.env.api_key"), "****1234");
  assert.equal(listed.get("core.daemon.api_key"), "****0001");

  const adapter = openReg(tmpDb(), { HOMEAGENT_LLM_BASE_URL: "http://x/v1", HOMEAGENT_LLM_ADAPTER: "ollama" });
  assert.equal(adapter.source("env").adapter, "ollama");
});

test("without HOMEAGENT_LLM_BASE_URL there is no env source; empty variables count as unset", () => {
  const file = tmpDb();
  openReg(file).set("core.daemon.api_key", "stored-api-key");
  const reg = openReg(file, { HOMEAGENT_LLM_MODEL: "m", HOMEAGENT_LLM_API_KEY: "k", HOMEAGENT_API_KEY: "" });
  assert.deepEqual(reg.sourceNames(), []);
  assert.equal(reg.get("core.daemon.api_key"), "stored-api-key");
});

test("disabled plugins are recorded and survive reopen", () => {
  const file = tmpDb();
  const reg = openReg(file);
  const before = Date.now();
  reg.disablePlugin("timer", "cli");
  reg.disablePlugin("mcp", "webui");
  reg.enablePlugin("mcp");
  assert.equal(reg.isPluginDisabled("timer"), true);
  assert.equal(reg.isPluginDisabled("mcp"), false);
  reg.close();

  const again = openReg(file);
  const [timer, ...rest] = again.disabledPlugins();
  assert.equal(rest.length, 0);
  assert.equal(timer.name, "timer");
  assert.equal(timer.disabledBy, "cli");
  assert.ok(timer.disabledAt >= before && timer.disabledAt <= Date.now());
  assert.throws(() => again.disablePlugin("", "cli"), /invalid plugin name ""/);
});

test("onChange sees writes; a throwing listener breaks neither set nor other listeners", () => {
  const errors: string[] = [];
  const reg = ConfigRegistry.open(tmpDb(), { env: {}, onListenerError: (_err, key) => errors.push(key) });
  open.push(reg);
  const seen: string[] = [];
  reg.onChange(() => {
    throw new Error("listener bug");
  });
  const off = reg.onChange((key, value) => seen.push(`${key}=${value}`));

  reg.set("core.agent.max_tool_turns", "12");
  assert.equal(reg.getInt("core.agent.max_tool_turns"), 12);
  reg.unset("core.agent.max_tool_turns");
  off();
  reg.set("core.agent.max_tool_turns", "13");

  assert.deepEqual(seen, ["core.agent.max_tool_turns=12", "core.agent.max_tool_turns=10"]);
  assert.deepEqual(errors, ["core.agent.max_tool_turns", "core.agent.max_tool_turns", "core.agent.max_tool_turns"]);
});

test('set(key, "") removes the stored value, so the default applies again', () => {
  const file = tmpDb();
  const reg = openReg(file);
  const seen: string[] = [];
  reg.onChange((key, value) => seen.push(`${key}=${value}`));
  reg.set("core.agent.max_tool_turns", "12");
  reg.set("core.daemon.log_level", "debug");
  // Neither "" is a valid value of its type: before, both were refused and the stored value stayed.
  reg.set("core.agent.max_tool_turns", "");
  reg.set("core.daemon.log_level", "");
  assert.equal(reg.getInt("core.agent.max_tool_turns"), 10);
  assert.equal(reg.get("core.daemon.log_level"), "info");
  assert.deepEqual(seen, [
    "core.agent.max_tool_turns=12",
    "core.daemon.log_level=debug",
    "core.agent.max_tool_turns=10",
    "core.daemon.log_level=info",
  ]);
  // Nothing stored, nothing to tell.
  reg.set("core.agent.max_tool_turns", "");
  assert.equal(seen.length, 4);
  reg.close();
  const again = openReg(file);
  assert.equal(again.getInt("core.agent.max_tool_turns"), 10, "the row is gone, not an empty value");
  assert.equal(again.problems().length, 0);
  // A source whose only key is reset is no source any more.
  again.set("core.llm.sources.tmp.model", "m");
  again.set("core.llm.sources.tmp.model", "");
  assert.deepEqual(again.sourceNames(), []);
  assert.throws(() => again.set("core.nothing.here", ""), /unknown config key/);
});

test('set(key, "") of a key set by the environment is refused like any other write', () => {
  const reg = openReg(tmpDb(), { HOMEAGENT_API_KEY: "env-api-key-0001" });
  assert.throws(() => reg.set("core.daemon.api_key", ""), /environment variable HOMEAGENT_API_KEY/);
  assert.equal(reg.get("core.daemon.api_key"), "env-api-key-0001");
});

test("definitions with bad defaults are refused", () => {
  const reg = openReg();
  assert.throws(
    () => reg.registerDefs([{ key: "plugin.x.n", default: "many", type: "int", category: "x", description: "" }]),
    (err: Error) =>
      err instanceof ConfigError &&
      err.code === "config_bad_definition" &&
      /config def plugin\.x\.n: default "many" is not an integer/.test(err.message),
  );
  assert.throws(
    () => reg.registerDefs([{ key: "plugin.x.s", default: "", type: "select", category: "x", description: "" }]),
    /a select needs options/,
  );
  assert.throws(
    () =>
      reg.registerDefs([
        { key: "plugin.x.d", default: "1s", type: "duration", max: 2 ** 40, category: "x", description: "" },
      ]),
    /duration bounds must lie within 0 and 2147483647 ms/,
  );
  assert.equal(reg.def("plugin.x.n"), undefined);
});
