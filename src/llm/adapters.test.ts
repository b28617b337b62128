import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { installBundledAdapters, loadAdapterSource } from "./adapters.js";

function withDataDir(fn: (dir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), "homeagent-adapters-"));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("bundled adapters are copied once and user edits are kept", () => {
  withDataDir((dir) => {
    assert.ok(installBundledAdapters(dir).includes("openai"));
    const bundled = readFileSync(new URL("./adapters/openai.lua", import.meta.url), "utf8");
    assert.equal(loadAdapterSource(dir, "openai"), bundled);
    writeFileSync(join(dir, "adapters", "openai.lua"), "-- mine\nreturn {}");
    assert.deepEqual(installBundledAdapters(dir), []);
    assert.equal(loadAdapterSource(dir, "openai"), "-- mine\nreturn {}");
  });
});

test("unknown or unsafe adapter names fail clearly", () => {
  withDataDir((dir) => {
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
});
