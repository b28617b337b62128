/** ConfigRegistry.defInfos: what the settings API shows as the definitions of the settings. */
import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { ConfigRegistry } from "./registry.js";

const open: ConfigRegistry[] = [];

function openReg(env: Record<string, string | undefined> = {}): ConfigRegistry {
  const reg = ConfigRegistry.open(path.join(tempDir("ha-def-info-"), "config.db"), { env });
  open.push(reg);
  return reg;
}

afterEach(() => {
  for (const reg of open.splice(0)) reg.close();
});

test("every definition under the prefix, templates included, in the order defined, without the check rule", () => {
  const reg = openReg();
  const infos = reg.defInfos("core.llm.");
  const keys = infos.map((d) => d.key);
  const templates = keys.filter((k) => k.includes("*"));
  assert.deepEqual(templates.slice(0, 4), [
    "core.llm.sources.*.adapter",
    "core.llm.sources.*.base_url",
    "core.llm.sources.*.model",
    "core.llm.sources.*.api_key",
  ]);
  assert.ok(keys.includes("core.llm.temperature"));
  assert.ok(keys.includes("core.llm.sources.*.base_url"), "templates are listed");
  assert.ok(keys.every((k) => k.startsWith("core.llm.")));
  const adapter = infos.find((d) => d.key === "core.llm.sources.*.adapter");
  assert.ok(adapter);
  assert.equal("check" in adapter, false, "the check function does not leave the registry");
  assert.equal(adapter.default, "openai");
  assert.equal(adapter.secret, false);
  assert.equal(infos.find((d) => d.key === "core.llm.sources.*.api_key")?.secret, true);
  assert.ok(reg.defInfos().length > infos.length);
  assert.deepEqual(reg.defInfos("nothing."), []);
});

test("a prefix naming one source covers the source templates", () => {
  const reg = openReg();
  const keys = reg.defInfos("core.llm.sources.main.").map((d) => d.key);
  assert.ok(keys.includes("core.llm.sources.*.base_url"));
  assert.ok(keys.every((k) => k.startsWith("core.llm.sources.*.")));
  assert.deepEqual(
    reg.defInfos("core.llm.sources.main.base").map((d) => d.key),
    ["core.llm.sources.*.base_url"],
  );
  assert.deepEqual(reg.defInfos("core.llm.sources.bad name."), []);
});

test("hidden definitions are left out; plugin definitions are in", () => {
  const reg = openReg();
  reg.registerDefs([
    { key: "plugin.demo.state", default: "x", type: "string", category: "demo", description: "", hidden: true },
    { key: "plugin.demo.token", default: "", type: "password", category: "demo", description: "Token" },
  ]);
  assert.deepEqual(
    reg.defInfos("plugin.demo.").map((d) => [d.key, d.secret]),
    [["plugin.demo.token", true]],
  );
});

test("env names the variable that sets a key now, and only then", () => {
  const plain = openReg();
  assert.equal(plain.defInfos("core.daemon.api_key")[0].env, undefined);
  const reg = openReg({ HOMEAGENT_API_KEY: "env-key-0123456789" });
  const [info] = reg.defInfos("core.daemon.api_key");
  assert.equal(info.env, "HOMEAGENT_API_KEY");
  assert.equal(info.secret, true);
  assert.equal(info.default, "", "the definition, never the value");
});
