/**
 * ConfigRegistry.setMany, the settings form's save: every change is checked as set() checks it, and either
 * all are stored (one transaction, then the listeners) or none, with each refused key and its reason. The
 * secret-mask rule it shares with set() is checked here too.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { ConfigError, ConfigRegistry, MAX_CHANGES } from "./registry.js";
import { MAX_SOURCES } from "./sources.js";

const opened: ConfigRegistry[] = [];

function openReg(file = path.join(tempDir("homeagent-setmany-"), "config.db"), env: Record<string, string> = {}) {
  const reg = ConfigRegistry.open(file, { env });
  opened.push(reg);
  return { reg, file };
}

afterEach(() => {
  for (const reg of opened.splice(0)) {
    try {
      reg.close();
    } catch {
      // closed by the test itself
    }
  }
});

const SOURCE = "core.llm.sources.main.";

test("a refused third key leaves the first two unchanged, in memory and on disk, and tells no listener", () => {
  const { reg, file } = openReg();
  reg.set(`${SOURCE}model`, "old-model");
  const heard: string[] = [];
  reg.onChange((key) => heard.push(key));
  const answer = reg.setMany({
    [`${SOURCE}model`]: "new-model",
    [`${SOURCE}base_url`]: "http://127.0.0.1:9/v1",
    [`${SOURCE}priority`]: "first",
  });
  assert.deepEqual(Object.keys(answer.refused), [`${SOURCE}priority`]);
  assert.match(answer.refused[`${SOURCE}priority`], /priority.*"first" is not an integer/);
  assert.equal(reg.get(`${SOURCE}model`), "old-model");
  assert.equal(reg.get(`${SOURCE}base_url`), "");
  assert.deepEqual(heard, []);
  reg.close();
  const again = openReg(file).reg;
  assert.equal(again.get(`${SOURCE}model`), "old-model");
  assert.equal(again.get(`${SOURCE}base_url`), "");
});

test("all valid: every change is stored at once, deletes included, and each listener hears of each key after", () => {
  const { reg, file } = openReg();
  reg.set("core.agent.max_tool_turns", "12");
  const heard: string[] = [];
  reg.onChange((key, value) => heard.push(`${key}=${value}|model=${reg.get(`${SOURCE}model`)}`));
  const answer = reg.setMany({
    [`${SOURCE}base_url`]: "http://127.0.0.1:9/v1",
    [`${SOURCE}model`]: "m1",
    "core.agent.max_tool_turns": "",
  });
  assert.deepEqual(answer, { refused: {} });
  assert.deepEqual(heard, [
    `${SOURCE}base_url=http://127.0.0.1:9/v1|model=m1`,
    `${SOURCE}model=m1|model=m1`,
    "core.agent.max_tool_turns=10|model=m1",
  ]);
  reg.close();
  const again = openReg(file).reg;
  assert.equal(again.get(`${SOURCE}model`), "m1");
  assert.equal(again.getInt("core.agent.max_tool_turns"), 10, '"" deleted the stored value');
});

test("every refusal is named, each with set()'s own message; nothing is stored", () => {
  const { reg } = openReg(undefined, { HOMEAGENT_LLM_BASE_URL: "http://127.0.0.1:1/v1" });
  const changes: Record<string, unknown> = {
    "core.agent.max_tool_turns": "many",
    "core.no_such_key": "1",
    "core.llm.sources.env.base_url": "http://127.0.0.1:2/v1",
    "core.llm.sources.x.base_url": "javascript:alert(1)",
    "core.agent.personal_prompt": 42,
    "core.agent.system_prompt": "fine on its own",
  };
  // A key that an object literal would turn into its prototype must still be refused, not lost.
  Object.defineProperty(changes, "__proto__", { value: "x", enumerable: true });
  const { refused } = reg.setMany(changes as Record<string, string>);
  for (const [key, value] of Object.entries(changes)) {
    if (key === "core.agent.system_prompt") continue;
    let single: unknown;
    try {
      reg.set(key, value as string);
    } catch (err) {
      single = err;
    }
    assert.ok(single instanceof ConfigError, `${key} is refused by set() too`);
    assert.equal(refused[key], single.message, key);
  }
  assert.equal(Object.keys(refused).length, 6);
  assert.match(refused["core.agent.personal_prompt"], /must be a string/);
  assert.equal(reg.get("core.agent.system_prompt"), reg.def("core.agent.system_prompt")?.default);
});

test("a refusal by the value's rules comes with its id and details, for a client to say in its own language", () => {
  const { reg } = openReg(undefined, { HOMEAGENT_LLM_BASE_URL: "http://127.0.0.1:1/v1" });
  const { refused, reasons } = reg.setMany({
    "core.agent.max_tool_turns": "many",
    "core.agent.max_context_size": "0",
    "core.daemon.log_level": "loud",
    "core.llm.retry_delay": "soon",
    "core.llm.sources.x.base_url": "ftp://example.org",
    "core.llm.sources.env.base_url": "http://127.0.0.1:2/v1",
    "core.agent.timezone": "Mars/Olympus",
    "core.no_such_key": "1",
  });
  assert.deepEqual(reasons, {
    "core.agent.max_tool_turns": { reason: "not_integer" },
    "core.agent.max_context_size": { reason: "out_of_range", params: { min: "1", max: "10000" } },
    "core.daemon.log_level": { reason: "not_option", params: { options: "debug, info, warn, error" } },
    "core.llm.retry_delay": { reason: "bad_duration" },
    "core.llm.sources.x.base_url": { reason: "bad_scheme" },
    "core.llm.sources.env.base_url": { reason: "env_override", params: { variable: "HOMEAGENT_LLM_BASE_URL" } },
    "core.agent.timezone": { reason: "rule" },
  });
  assert.ok(refused["core.no_such_key"], "a refusal without an id still has its English");
  assert.equal(Object.keys(refused).length, 8);
});

test("a secret's own mask, or the bare mask the web UI shows, changes nothing; any other mask is refused (set and setMany alike)", () => {
  const { reg } = openReg();
  const key = `${SOURCE}api_key`;
  assert.throws(() => reg.set(key, "****"), /masked secret/, "no secret is set, so the bare mask keeps nothing");
  reg.set(key, "sk-real-secret-0000wxyz");
  for (const mask of ["****wxyz", "****"]) {
    reg.set(key, mask);
    assert.equal(reg.get(key), "sk-real-secret-0000wxyz");
    assert.deepEqual(reg.setMany({ [key]: mask, [`${SOURCE}model`]: "m" }), { refused: {} });
    assert.equal(reg.get(key), "sk-real-secret-0000wxyz");
  }
  assert.throws(() => reg.set(key, "****abcd"), /masked secret/);
  assert.match(reg.setMany({ [key]: "****abcd" }).refused[key], /masked secret/);
  assert.equal(reg.get(key), "sk-real-secret-0000wxyz");
  reg.set("core.agent.personal_prompt", "****");
  assert.equal(reg.get("core.agent.personal_prompt"), "****", "only secrets are guarded");
});

test("the source limit counts the sources a batch adds; more than MAX_CHANGES keys are refused whole", () => {
  const { reg } = openReg();
  for (let i = 0; i < MAX_SOURCES - 1; i++) reg.set(`core.llm.sources.s${i}.model`, "m");
  const { refused } = reg.setMany({
    "core.llm.sources.last.model": "m",
    "core.llm.sources.last.base_url": "http://127.0.0.1:9/v1",
    "core.llm.sources.over.model": "m",
  });
  assert.deepEqual(Object.keys(refused), ["core.llm.sources.over.model"]);
  assert.match(refused["core.llm.sources.over.model"], new RegExp(`at most ${MAX_SOURCES} LLM sources`));
  assert.equal(reg.sourceNames().length, MAX_SOURCES - 1, "nothing stored");

  const distinct = Object.fromEntries(
    Array.from({ length: MAX_CHANGES + 1 }, (_, i) => [`core.llm.sources.n${i}.model`, "m"]),
  );
  assert.throws(
    () => reg.setMany(distinct),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.code === "config_limit" &&
      new RegExp(`at most ${MAX_CHANGES} settings can change at once`).test(err.message),
  );
});

test("at the source limit a batch that removes one source and adds another (a swap) is stored; a partial removal is not", () => {
  const { reg } = openReg();
  for (let i = 0; i < MAX_SOURCES; i++) reg.set(`core.llm.sources.f${i}.model`, "m");
  reg.set("core.llm.sources.f1.base_url", "http://127.0.0.1:9/v1");

  assert.deepEqual(
    reg.setMany({ "core.llm.sources.f0.model": "", "core.llm.sources.g0.model": "m" }),
    { refused: {} },
    "the swap is valid as a whole",
  );
  assert.equal(reg.sourceNames().length, MAX_SOURCES);
  assert.ok(reg.sourceNames().includes("g0") && !reg.sourceNames().includes("f0"));

  const partial = reg.setMany({ "core.llm.sources.f1.model": "", "core.llm.sources.g1.model": "m" });
  assert.match(partial.refused["core.llm.sources.g1.model"] ?? "", new RegExp(`at most ${MAX_SOURCES} LLM sources`));
  assert.equal(reg.get("core.llm.sources.f1.model"), "m", "f1 keeps its base_url, so it stays and nothing is stored");

  const oneOfTwo = reg.setMany({
    "core.llm.sources.f2.model": "",
    "core.llm.sources.g2.model": "m",
    "core.llm.sources.g3.model": "m",
  });
  assert.deepEqual(Object.keys(oneOfTwo.refused), ["core.llm.sources.g3.model"], "the one added last is refused");
  assert.throws(() => reg.set("core.llm.sources.g4.model", "m"), /at most 32 LLM sources/);
});

test("moving a source to another host drops its stored key unless a new one comes with it; the same host keeps it", () => {
  const { reg } = openReg();
  const key = `${SOURCE}api_key`;
  const url = `${SOURCE}base_url`;
  reg.setMany({ [key]: "sk-kept-for-this-host-0001" });
  reg.set(url, "https://api.example.com/v1");
  assert.equal(reg.get(key), "sk-kept-for-this-host-0001", "a key stored before any base_url is kept");
  reg.set(url, "https://api.example.com/v2");
  assert.equal(reg.get(key), "sk-kept-for-this-host-0001", "another path on the same host keeps it");
  reg.set(url, "https://attacker.example.net/v1");
  assert.equal(reg.get(key), "", "the key would go to a host it was not given for");
  reg.setMany({ [url]: "https://api.example.com/v1", [key]: "sk-new-for-the-new-host-02" });
  assert.equal(reg.get(key), "sk-new-for-the-new-host-02", "a key given with the move is stored");
  assert.deepEqual(reg.setMany({ [url]: "http://127.0.0.1:9/v1" }), { refused: {} });
  assert.equal(reg.get(key), "", "setMany drops it the same way");
});
