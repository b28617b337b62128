/**
 * `json` settings on a real config.db: a value that is no JSON, or does not fit the schema, is refused with
 * the path that is wrong and nothing is stored; the values of secret fields are masked in every list and
 * in the log masker's secrets, and a masked one written back keeps the stored credential, while a mask with
 * nothing stored behind it is refused.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { type ConfigError, ConfigRegistry } from "./registry.js";

const open: ConfigRegistry[] = [];
afterEach(() => {
  for (const reg of open.splice(0)) reg.close();
});

function registry(): ConfigRegistry {
  const reg = ConfigRegistry.open(path.join(tempDir("homeagent-json-setting-"), "config.db"), { env: {} });
  open.push(reg);
  reg.pluginSettings("demo").define([
    {
      key: "servers",
      default: "{}",
      type: "json",
      description: "servers",
      schema: {
        type: "object",
        additionalProperties: {
          type: "object",
          properties: {
            command: { type: "string" },
            env: { type: "object", additionalProperties: { type: "string" } },
          },
          required: ["command"],
          additionalProperties: false,
        },
      },
      secretFields: ["env", "headers"],
    },
  ]);
  return reg;
}

const KEY = "plugin.demo.servers";
const TOKEN = "ghp_0123456789abcdefWXYZ";

test("a value that is no JSON or does not fit the schema is refused with where it is wrong", () => {
  const reg = registry();
  assert.throws(
    () => reg.set(KEY, "{"),
    (err: ConfigError) => /is not JSON/.test(err.message),
  );
  assert.throws(
    () => reg.set(KEY, JSON.stringify({ gh: { command: 5 } })),
    (err: ConfigError) => /\/gh\/command must be string/.test(err.message) && /nothing was changed/.test(err.message),
  );
  assert.throws(
    () => reg.set(KEY, JSON.stringify({ gh: { args: [] } })),
    (err: ConfigError) => /must have required property 'command'/.test(err.message),
  );
  assert.equal(reg.get(KEY), "{}");
  assert.deepEqual(reg.setMany({ [KEY]: JSON.stringify({ gh: { comand: "x" } }) }).reasons?.[KEY]?.reason, "bad_json");
});

test("secret fields are masked in lists and known to the log masker; a masked one written back keeps the stored value", () => {
  const reg = registry();
  reg.set(KEY, JSON.stringify({ gh: { command: "npx", env: { GITHUB_TOKEN: TOKEN, SHORT: "abc" } } }));
  const listed = reg.list("plugin.demo.").find((e) => e.key === KEY);
  assert.ok(listed);
  assert.ok(!listed.value.includes(TOKEN) && !listed.value.includes('abc"'), listed.value);
  assert.deepEqual(JSON.parse(listed.value), {
    gh: { command: "npx", env: { GITHUB_TOKEN: "****WXYZ", SHORT: "****" } },
  });
  assert.ok(reg.secrets().includes(TOKEN));

  // The form sends the listed value back with one change: the secrets stay as they were.
  const edited = JSON.parse(listed.value);
  edited.gh.command = "node";
  reg.set(KEY, JSON.stringify(edited));
  assert.deepEqual(JSON.parse(reg.get(KEY) ?? ""), {
    gh: { command: "node", env: { GITHUB_TOKEN: TOKEN, SHORT: "abc" } },
  });

  // A mask where nothing is stored (a new variable, a renamed server) would store "****": refused.
  assert.throws(
    () => reg.set(KEY, JSON.stringify({ other: { command: "node", env: { GITHUB_TOKEN: "****WXYZ" } } })),
    (err: ConfigError) => err.refusal?.reason === "masked_secret" && /other\.env\.GITHUB_TOKEN/.test(err.message),
  );
  assert.equal(JSON.parse(reg.get(KEY) ?? "").gh.env.GITHUB_TOKEN, TOKEN);
});

test("a definition whose schema is not JSON Schema, or with secret fields on another type, is refused", () => {
  const reg = registry();
  const settings = reg.pluginSettings("broken");
  assert.throws(() =>
    settings.define([{ key: "x", default: "{}", type: "json", description: "", schema: { type: "nope" } }]),
  );
  assert.throws(() =>
    settings.define([{ key: "y", default: "", type: "text", description: "", secretFields: ["env"] }]),
  );
});

test("a refused value that is no JSON is never quoted (it may hold a credential); one nested too deep is refused cleanly", () => {
  const reg = registry();
  const broken = `{"gh": {"command": "npx", "env": {"GITHUB_TOKEN": ${TOKEN}}}}`;
  assert.throws(
    () => reg.set(KEY, broken),
    (err: ConfigError) => !err.message.includes("ghp_") && /"\(not shown\)" is not JSON/.test(err.message),
  );
  const deep = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
  assert.throws(
    () => reg.set(KEY, deep),
    (err: ConfigError) => /nests deeper than 64 levels/.test(err.message),
  );
  assert.equal(reg.get(KEY), "{}");
});
