/** The adapter files in <data>/adapters/: bundled ones copied once, user edits kept, names checked. */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { installBundledAdapters, loadAdapterLibraries, loadAdapterSource } from "./adapters.js";

test("bundled adapters are copied once and user edits are kept", () => {
  const dir = tempDir("homeagent-adapters-");
  assert.ok(installBundledAdapters(dir).includes("openai"));
  const bundled = readFileSync(new URL("./adapters/openai.lua", import.meta.url), "utf8");
  assert.equal(loadAdapterSource(dir, "openai"), bundled);
  writeFileSync(join(dir, "adapters", "openai.lua"), "-- mine\nreturn {}");
  assert.deepEqual(installBundledAdapters(dir), []);
  assert.equal(loadAdapterSource(dir, "openai"), "-- mine\nreturn {}");
});

test("bundled libraries are copied to adapters/lib once and user edits are kept", () => {
  const dir = tempDir("homeagent-adapters-");
  assert.ok(installBundledAdapters(dir).includes("lib/openai_compat"));
  const bundled = readFileSync(new URL("./adapters/lib/openai_compat.lua", import.meta.url), "utf8");
  assert.equal(loadAdapterLibraries(dir).openai_compat, bundled);
  writeFileSync(join(dir, "adapters", "lib", "openai_compat.lua"), "return { mine = true }");
  writeFileSync(join(dir, "adapters", "lib", "extra.lua"), "return {}");
  assert.deepEqual(installBundledAdapters(dir), []);
  const wire = readFileSync(new URL("./adapters/lib/wire.lua", import.meta.url), "utf8");
  assert.deepEqual(loadAdapterLibraries(dir), { extra: "return {}", openai_compat: "return { mine = true }", wire });
});

test("unknown or unsafe adapter names fail clearly", () => {
  const dir = tempDir("homeagent-adapters-");
  installBundledAdapters(dir);
  writeFileSync(join(dir, "adapters", "custom.lua"), "return {}");
  assert.throws(
    () => loadAdapterSource(dir, "nope"),
    // Every bundled adapter is listed too; the user's own one sits among them in name order.
    /no adapter named nope in .*adapters \(available: anthropic, custom, deepseek, .*openai.*\)/,
  );
  for (const bad of ["../openai", "a/b", "", ".hidden", "x.lua"]) {
    assert.throws(() => loadAdapterSource(dir, bad), /invalid adapter name/);
  }
});
