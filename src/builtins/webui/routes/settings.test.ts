/**
 * `/api/v1/settings` over real HTTP against a real daemon: listing with definitions, writes validated by
 * the config center (its refusals as 400 with its message), deletes, secrets masked in every answer, and
 * the one-shot LLM source test.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  startWebDaemon,
  TEST_API_KEY,
  TEST_LLM_KEY,
  TEST_PASSWORD,
  type WebDaemon,
} from "../../../../test/fixtures/webui.js";

let w: WebDaemon;
before(async () => {
  w = await startWebDaemon({ webuiOnly: true });
});
after(() => w.stop());

interface Entry {
  key: string;
  value: string;
  env?: string;
}
interface Def {
  key: string;
  secret: boolean;
  default: string;
  env?: string;
}

describe("GET /api/v1/settings", () => {
  test("lists settings with their definitions; a prefix narrows both", async () => {
    const all = await w.json<{ settings: Entry[]; defs: Def[] }>("GET", "/api/v1/settings");
    assert.equal(all.status, 200);
    assert.ok(all.body.settings.some((e) => e.key === "plugin.webui.listen_addr"));
    const template = all.body.defs.find((d) => d.key === "core.llm.sources.*.api_key");
    assert.equal(template?.secret, true);
    const webui = await w.json<{ settings: Entry[]; defs: Def[] }>("GET", "/api/v1/settings?prefix=plugin.webui.");
    assert.deepEqual(webui.body.settings.map((e) => e.key).sort(), [
      "plugin.webui.allowed_hosts",
      "plugin.webui.listen_addr",
      "plugin.webui.openai_memory",
      "plugin.webui.request_log",
      "plugin.webui.upload_quota_mb",
    ]);
    assert.ok(webui.body.defs.every((d) => d.key.startsWith("plugin.webui.")));
    const envKey = all.body.defs.find((d) => d.key === "core.llm.sources.*.base_url");
    assert.ok(envKey, "templates are listed");
  });

  test("secrets never leave, not even their last characters: the LLM key from the environment, a stored key, the API key", async () => {
    const put = await w.json("PUT", "/api/v1/settings", {
      key: "core.llm.sources.spare.api_key",
      value: "sk-spare-secret-abcdef7788",
    });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body, { key: "core.llm.sources.spare.api_key", value: "****" });
    const res = await w.fetch("/api/v1/settings");
    const text = await res.text();
    for (const secret of [TEST_LLM_KEY, "sk-spare-secret-abcdef7788", TEST_API_KEY, TEST_PASSWORD]) {
      assert.ok(!text.includes(secret.slice(-4)), `the listing holds the end of ${secret}`);
    }
    const entries = (JSON.parse(text) as { settings: Entry[] }).settings;
    const envKey = entries.find((e) => e.key === "core.llm.sources.env.api_key");
    assert.deepEqual([envKey?.value, envKey?.env], ["****", "HOMEAGENT_LLM_API_KEY"], "set, and by which variable");
    await w.json("PUT", "/api/v1/settings", { key: "core.llm.sources.spare.api_key", value: null });
  });

  test("a prefix over its length is 400", async () => {
    const res = await w.json("GET", `/api/v1/settings?prefix=${"a".repeat(300)}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "invalid_argument");
  });
});

describe("PUT /api/v1/settings", () => {
  const put = (body: unknown) => w.json("PUT", "/api/v1/settings", body);

  test("a valid value is stored and in effect at once; null deletes it (the default applies again)", async () => {
    const res = await put({ key: "core.agent.max_tool_turns", value: "7" });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { key: "core.agent.max_tool_turns", value: "7" });
    assert.equal(w.daemon.config.get("core.agent.max_tool_turns"), "7");
    const listed = await w.json<{ settings: Entry[] }>("GET", "/api/v1/settings?prefix=core.agent.max_tool_turns");
    assert.equal(listed.body.settings[0].value, "7");
    const deleted = await put({ key: "core.agent.max_tool_turns", value: null });
    assert.equal(deleted.status, 200);
    assert.notEqual(deleted.body.value, "7");
    assert.equal(deleted.body.value, w.daemon.config.get("core.agent.max_tool_turns"));
  });

  test("the config center's refusals are 400 with its own code and message", async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{ key: "core.agent.max_tool_turns", value: "many" }, "config_invalid", /core\.agent\.max_tool_turns/],
      [{ key: "core.no_such_key", value: "1" }, "config_unknown_key", /core\.no_such_key/],
      [{ key: "core.llm.sources.env.model", value: "m" }, "config_env_override", /HOMEAGENT_LLM_MODEL/],
      [{ key: "core.llm.sources.x.base_url", value: "javascript:alert(1)" }, "config_invalid", /base_url/],
    ];
    for (const [body, code, message] of cases) {
      const res = await put(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, code, JSON.stringify(res.body));
      assert.match(res.body.error.message, message);
    }
    assert.ok(!w.daemon.config.sourceNames().includes("x"), "nothing refused was stored");
  });

  test("the web UI's mask sent back keeps the real secret; the CLI's masks are 400 whether they match or not", async () => {
    const key = "core.llm.sources.masked.api_key";
    const secret = "sk-masked-secret-0000wxyz";
    await put({ key, value: secret });
    const listed = await w.json<{ settings: Entry[] }>("GET", `/api/v1/settings?prefix=${key}`);
    const mask = listed.body.settings.find((e) => e.key === key)?.value;
    assert.equal(mask, "****");
    const same = await put({ key, value: mask });
    assert.equal(same.status, 200);
    assert.deepEqual(same.body, { key, value: "****", unchanged: true });
    assert.equal(w.daemon.config.get(key), secret, "the real key is still stored");
    // The CLI's mask, right or wrong, is refused alike: the answer must not tell whether the last four match.
    for (const value of ["****wxyz", "****abcd"]) {
      const other = await put({ key, value });
      assert.equal(other.status, 400, value);
      assert.match(other.body.error.message, /masked secret/);
      const batch = await put({ changes: { [key]: value } });
      assert.equal(batch.status, 400, value);
      assert.deepEqual(batch.body.error.reasons, { [key]: { reason: "masked_secret" } });
    }
    assert.equal(w.daemon.config.get(key), secret);
    const plain = await put({ key: "core.agent.personal_prompt", value: "****" });
    assert.equal(plain.status, 200, "only secrets are guarded");
    assert.equal(w.daemon.config.get("core.agent.personal_prompt"), "****");
    await put({ key: "core.agent.personal_prompt", value: null });
    await put({ key, value: null });
  });

  test("a listen_addr the plugin could not bind is refused when written, not at the next start", async () => {
    for (const value of ["nonsense", "127.0.0.1", "127.0.0.1:99999", "[::1:80", " 127.0.0.1:8081", "a b:80"]) {
      const res = await put({ key: "plugin.webui.listen_addr", value });
      assert.equal(res.status, 400, value);
      assert.equal(res.body.error.code, "config_invalid");
      assert.match(res.body.error.message, /not in the expected form \(e\.g\. 127\.0\.0\.1:8080\)/);
    }
    for (const value of ["0.0.0.0:8081", "[::1]:8080", "localhost:0", "[::]:65535"]) {
      assert.equal((await put({ key: "plugin.webui.listen_addr", value })).status, 200, value);
    }
    await put({ key: "plugin.webui.listen_addr", value: null });
  });

  test("malformed bodies are 400 (fields), 415 (not JSON) or 413 (over the limit)", async () => {
    for (const body of [{}, { key: "" }, { key: 5, value: "1" }, { key: "core.agent.max_tool_turns", value: 5 }, []]) {
      const res = await put(body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    const text = await w.fetch("/api/v1/settings", {
      method: "PUT",
      body: "key=a&value=b",
      headers: { "Content-Type": "text/plain" },
    });
    assert.equal(text.status, 415);
    const big = await put({ key: "core.agent.max_tool_turns", value: "1".repeat(1024 * 1024) });
    assert.equal(big.status, 413);
  });
});

describe("PUT /api/v1/settings {changes} (one form, all or none)", () => {
  const put = (changes: unknown) => w.json("PUT", "/api/v1/settings", { changes });
  const SRC = "core.llm.sources.batch.";

  test("every change is stored at once; the answer shows each value as the list does (a secret only as set)", async () => {
    const res = await put({
      [`${SRC}base_url`]: "http://127.0.0.1:9/v1",
      [`${SRC}model`]: "batch-model",
      [`${SRC}api_key`]: "sk-batch-secret-000099zz",
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      saved: {
        [`${SRC}base_url`]: "http://127.0.0.1:9/v1",
        [`${SRC}model`]: "batch-model",
        [`${SRC}api_key`]: "****",
      },
    });
    assert.equal(w.daemon.config.get(`${SRC}api_key`), "sk-batch-secret-000099zz");
    const again = await put({ [`${SRC}api_key`]: "****", [`${SRC}model`]: null });
    assert.equal(again.status, 200, "the mask sent back changes nothing");
    assert.equal(w.daemon.config.get(`${SRC}api_key`), "sk-batch-secret-000099zz");
    assert.equal(w.daemon.config.get(`${SRC}model`), "", "null reset the model");
    await put({ [`${SRC}base_url`]: null, [`${SRC}api_key`]: null });
  });

  test("a bad third field saves nothing and the 400 names each refused key with the registry's message", async () => {
    const res = await put({
      [`${SRC}base_url`]: "http://127.0.0.1:9/v1",
      [`${SRC}model`]: "m",
      [`${SRC}priority`]: "first",
      [`${SRC}api_key`]: "****",
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "settings_refused");
    assert.match(res.body.error.message, /^nothing was saved: 2 of 4 settings refused \(/);
    assert.deepEqual(Object.keys(res.body.error.refused).sort(), [`${SRC}api_key`, `${SRC}priority`]);
    assert.match(res.body.error.refused[`${SRC}priority`], /is not an integer/);
    assert.match(res.body.error.refused[`${SRC}api_key`], /masked secret/);
    assert.ok(!w.daemon.config.sourceNames().includes("batch"), "the valid fields were not stored either");
  });

  test("malformed or oversized batches are 400 and store nothing", async () => {
    const cases: Array<[unknown, RegExp]> = [
      ["core.agent.max_tool_turns=3", /^changes must be an object/],
      [["core.agent.max_tool_turns", "3"], /^changes must be an object/],
      [null, /^changes must be an object/],
      [{}, /^changes must name at least one setting/],
      [
        Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`core.llm.sources.n${i}.model`, "m"])),
        /at most 64 settings can change at once/,
      ],
    ];
    for (const [changes, message] of cases) {
      const res = await put(changes);
      assert.equal(res.status, 400, JSON.stringify(changes).slice(0, 80));
      assert.match(res.body.error.message, message);
    }
    assert.ok(!w.daemon.config.sourceNames().some((n) => /^n\d+$/.test(n)));
  });
});

describe("POST /api/v1/settings/llm/test", () => {
  test("tries one source and says how it went", async () => {
    w.llm.enqueue({ text: "OK" });
    const res = await w.json("POST", "/api/v1/settings/llm/test", { source: "env" });
    assert.equal(res.status, 200);
    assert.equal(res.body.source, "env");
    assert.equal(res.body.ok, true);
    assert.equal(res.body.reply, "OK");
    assert.equal(res.body.model, "fake-model");
  });

  test("a failing source is ok: false with the reason, secrets masked", async () => {
    w.llm.enqueue({ status: 401, errorMessage: `bad key ${TEST_LLM_KEY}` });
    const res = await w.json("POST", "/api/v1/settings/llm/test", { source: "env" });
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, false);
    assert.ok(!JSON.stringify(res.body).includes(TEST_LLM_KEY));
  });

  test("an unknown source is 404; a missing one 400", async () => {
    const unknown = await w.json("POST", "/api/v1/settings/llm/test", { source: "nope" });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, "llm_unknown_source");
    assert.equal((await w.json("POST", "/api/v1/settings/llm/test", {})).status, 400);
    assert.equal((await w.json("POST", "/api/v1/settings/llm/test", { source: 3 })).status, 400);
  });
});
