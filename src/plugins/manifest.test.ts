/** Reading a plugin directory: manifest fields and limits, entry dispatch, and the entry's SHA-256. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { writeBinEntry, writePluginDir } from "../../test/fixtures/fake-plugin-process.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { HomeAgentError } from "../util/errors.js";
import { loadPluginDir, MAX_MANIFEST_BYTES } from "./manifest.js";

const refused = (pattern: RegExp) => (err: unknown) => {
  assert.ok(err instanceof HomeAgentError, `expected a HomeAgentError, got ${String(err)}`);
  assert.match(err.message, pattern);
  return true;
};

test("a full manifest is read with its fields; unknown keys are ignored; no capabilities means core only", async () => {
  const root = tempDir("ha-manifest-");
  const dir = writePluginDir(root, "weather", {
    name_zh: "天气",
    name_en: "Weather",
    description: "forecasts",
    author: "me",
    license: "MIT",
    tags: ["weather"],
    platforms: ["linux", "darwin"],
    min_version: "0.0.1",
    deprecated: false,
    proxies: [{ service: "ui", port: 8080 }],
    future_field: { anything: true },
  });
  const { manifest, entry, manifestSha256 } = await loadPluginDir(dir);
  assert.equal(manifest.name, "weather");
  assert.equal(manifest.nameZh, "天气");
  assert.equal(manifest.version, "0.1.0");
  assert.deepEqual(manifest.tags, ["weather"]);
  assert.deepEqual(manifest.capabilities, ["core"]);
  assert.equal(manifest.critical, false);
  assert.equal("future_field" in manifest, false);
  assert.equal(entry.kind, "js");
  assert.equal(entry.path, join(dir, "plugin.js"));
  const digest = (file: string) =>
    createHash("sha256")
      .update(readFileSync(join(dir, file)))
      .digest("hex");
  assert.equal(entry.sha256, digest("plugin.js"));
  assert.equal(manifestSha256, digest("plugin.json"));
});

test("declared capabilities and critical are kept; an unknown capability is refused with the known ones", async () => {
  const root = tempDir("ha-manifest-");
  const good = await loadPluginDir(writePluginDir(root, "guard", { capabilities: ["events", "io"], critical: true }));
  assert.deepEqual(good.manifest.capabilities, ["events", "io"]);
  assert.equal(good.manifest.critical, true);
  await assert.rejects(
    loadPluginDir(writePluginDir(root, "typo", { capabilities: ["evnets"] })),
    refused(/unknown capabilities "evnets"; known: core, io/),
  );
});

test("the manifest's name must be its directory's, and a valid plugin name", async () => {
  const root = tempDir("ha-manifest-");
  const dir = writePluginDir(root, "alpha", { name: "beta" });
  await assert.rejects(loadPluginDir(dir), refused(/names the plugin "beta" but its directory is "alpha"/));
  const bad = writePluginDir(root, "Bad_Name");
  await assert.rejects(loadPluginDir(bad), refused(/invalid plugin name "Bad_Name"/));
});

test("a missing, oversized, malformed or mistyped manifest is refused, saying what is wrong", async () => {
  const root = tempDir("ha-manifest-");
  const dir = writePluginDir(root, "p");
  rmSync(join(dir, "plugin.json"));
  await assert.rejects(loadPluginDir(dir), refused(/cannot read plugin\.json .*every plugin needs one/));
  writeFileSync(join(dir, "plugin.json"), `{"name":"p","description":"${"x".repeat(MAX_MANIFEST_BYTES)}"}`);
  await assert.rejects(loadPluginDir(dir), refused(/plugin\.json is \d+ bytes, over the 65536-byte limit/));
  writeFileSync(join(dir, "plugin.json"), "{name: p}");
  await assert.rejects(loadPluginDir(dir), refused(/plugin\.json is not valid JSON/));
  writeFileSync(join(dir, "plugin.json"), "[]");
  await assert.rejects(loadPluginDir(dir), refused(/must hold a JSON object/));
  writeFileSync(join(dir, "plugin.json"), JSON.stringify({ name: "p", critical: "yes" }));
  await assert.rejects(loadPluginDir(dir), refused(/field "critical" must be true or false/));
  writeFileSync(join(dir, "plugin.json"), JSON.stringify({ name: "p", tags: "a,b" }));
  await assert.rejects(loadPluginDir(dir), refused(/field "tags" must be a list of strings/));
});

test("plugin.bin comes before plugin.js, and must be executable: the error says to chmod +x", async () => {
  const root = tempDir("ha-manifest-");
  const dir = writePluginDir(root, "tool");
  const bin = writeBinEntry(dir, "#!/bin/sh\n", 0o644);
  await assert.rejects(
    loadPluginDir(dir),
    refused(new RegExp(`plugin\\.bin is not executable: run chmod \\+x ${bin}`)),
  );
  writeBinEntry(dir, "#!/bin/sh\n", 0o755);
  const { entry } = await loadPluginDir(dir);
  assert.equal(entry.kind, "bin");
  assert.equal(entry.path, bin);
});

test("no entry file, or an entry kind this homed does not run, is refused", async () => {
  const root = tempDir("ha-manifest-");
  const dir = join(root, "empty");
  mkdirSync(dir);
  writeFileSync(join(dir, "plugin.json"), JSON.stringify({ name: "empty" }));
  await assert.rejects(loadPluginDir(dir), refused(/no entry file: add plugin\.bin or plugin\.js/));
  const lua = writePluginDir(root, "lua", { entry: "main.lua" });
  await assert.rejects(
    loadPluginDir(lua),
    refused(/entry "main\.lua" is not supported; use plugin\.bin or plugin\.js/),
  );
  const js = writePluginDir(root, "js", { entry: "plugin.js" });
  writeBinEntry(js);
  assert.equal((await loadPluginDir(js)).entry.kind, "js", "a declared entry wins over dispatch order");
});

test("a plugin for other platforms or a newer homed is refused before it runs", async () => {
  const root = tempDir("ha-manifest-");
  const other = process.platform === "darwin" ? "windows" : "darwin";
  await assert.rejects(
    loadPluginDir(writePluginDir(root, "mac", { platforms: [other] })),
    refused(new RegExp(`runs on ${other}, not on`)),
  );
  await assert.rejects(
    loadPluginDir(writePluginDir(root, "future", { min_version: "99.0.0" })),
    refused(/needs homed 99\.0\.0 or later/),
  );
});

test("the entry's SHA-256 changes with its content", async () => {
  const root = tempDir("ha-manifest-");
  const dir = writePluginDir(root, "p", {}, "export default 1;\n");
  const before = (await loadPluginDir(dir)).entry.sha256;
  assert.equal((await loadPluginDir(dir)).entry.sha256, before);
  writeFileSync(join(dir, "plugin.js"), "export default 2;\n");
  assert.notEqual((await loadPluginDir(dir)).entry.sha256, before);
});

test("a FIFO as plugin.json (also through a symlink) or as the entry is refused at once, not waited on", {
  timeout: 10_000,
}, async () => {
  const root = tempDir("ha-manifest-");
  const fifo = writePluginDir(root, "fifo");
  rmSync(join(fifo, "plugin.json"));
  execFileSync("mkfifo", [join(fifo, "plugin.json")]);
  await assert.rejects(loadPluginDir(fifo), refused(/plugin\.json is a FIFO, not a regular file; replace it/));
  const linked = writePluginDir(root, "linked");
  rmSync(join(linked, "plugin.json"));
  symlinkSync(join(fifo, "plugin.json"), join(linked, "plugin.json"));
  await assert.rejects(loadPluginDir(linked), refused(/plugin\.json is a FIFO, not a regular file/));
  const entry = writePluginDir(root, "entry");
  rmSync(join(entry, "plugin.js"));
  execFileSync("mkfifo", [join(entry, "plugin.js")]);
  await assert.rejects(loadPluginDir(entry), refused(/plugin\.js is a FIFO, not a regular file/));
  const dir = writePluginDir(root, "dir");
  rmSync(join(dir, "plugin.json"));
  mkdirSync(join(dir, "plugin.json"));
  await assert.rejects(loadPluginDir(dir), refused(/plugin\.json is a directory, not a regular file/));
});

test("an entry symlink must point into the plugin's own directory", async () => {
  const root = tempDir("ha-manifest-");
  const outside = join(root, "elsewhere.js");
  writeFileSync(outside, "export default {};\n");
  const escaping = writePluginDir(root, "escaping");
  rmSync(join(escaping, "plugin.js"));
  symlinkSync(outside, join(escaping, "plugin.js"));
  await assert.rejects(
    loadPluginDir(escaping),
    refused(/plugin\.js is a symlink to .*elsewhere\.js, outside the plugin's directory; copy the file into/),
  );
  const inside = writePluginDir(root, "inside");
  writeFileSync(join(inside, "real.js"), "export default 3;\n");
  rmSync(join(inside, "plugin.js"));
  symlinkSync("real.js", join(inside, "plugin.js"));
  const { entry } = await loadPluginDir(inside);
  assert.equal(entry.sha256, createHash("sha256").update("export default 3;\n").digest("hex"));
});
