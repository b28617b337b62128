/**
 * The adapters API: listing with bundled / usedBy, reading, saving only scripts that load in the sandbox as
 * adapters (hostile ones refused within the limit, nothing written), atomic private writes, and removal
 * refused for shipped adapters and for adapters a source uses.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { HomeAgentError } from "../util/errors.js";
import { AdapterAdmin, MAX_ADAPTER_BYTES } from "./adapter-admin.js";
import { adaptersDir, installBundledAdapters } from "./adapters.js";

const OPENAI = readFileSync(new URL("./adapters/openai.lua", import.meta.url), "utf8");
const LIMIT_MS = 300;

function setup(sources: Array<{ name: string; adapter: string }> = []) {
  const dataDir = tempDir("ha-adapter-admin-");
  installBundledAdapters(dataDir);
  const saved: string[] = [];
  const admin = new AdapterAdmin({
    dataDir,
    sources: () => sources,
    onSaved: (name) => saved.push(name),
    loadTimeoutMs: LIMIT_MS,
  });
  return { dataDir, dir: adaptersDir(dataDir), admin, saved };
}

const withMarker = (marker: string) =>
  OPENAI.replace(
    "local out = json.object({ model = req.model, messages = json.array() })",
    `local out = json.object({ model = req.model, messages = json.array(), marker = "${marker}" })`,
  );

const refusedWith = (code: string, message?: RegExp) => (err: Error) => {
  assert.ok(err instanceof HomeAgentError, String(err));
  assert.equal(err.code, code, err.message);
  if (message) assert.match(err.message, message);
  return true;
};

test("list: every adapter file, shipped ones marked bundled until edited, with the sources using each", () => {
  const { dir, admin } = setup([
    { name: "main", adapter: "openai" },
    { name: "backup", adapter: "openai" },
    { name: "claude", adapter: "anthropic" },
  ]);
  writeFileSync(join(dir, "gemini.lua"), "-- edited\n");
  const list = admin.list();
  const names = list.map((a) => a.name);
  assert.deepEqual(names, [...names].sort());
  assert.ok(!names.includes("lib"), "libraries are not adapters");
  const byName = new Map(list.map((a) => [a.name, a]));
  const openai = byName.get("openai");
  assert.ok(openai);
  assert.equal(openai.bundled, true);
  assert.deepEqual(openai.usedBy, ["backup", "main"]);
  assert.equal(openai.size, Buffer.byteLength(OPENAI));
  assert.ok(openai.updatedAt > 0);
  assert.deepEqual(byName.get("anthropic")?.usedBy, ["claude"]);
  assert.equal(byName.get("gemini")?.bundled, false, "edited by the user");
});

test("get: the code and its info; null for a missing adapter or a name that is none", () => {
  const { admin } = setup();
  const got = admin.get("openai");
  assert.equal(got?.code, OPENAI);
  assert.equal(got?.info.name, "openai");
  assert.equal(admin.get("nope"), null);
  assert.equal(admin.get("../adapters/openai"), null);
  assert.equal(admin.get("lib/openai_compat"), null);
});

test("put: a script that is an adapter is saved atomically, 0600, and reported", async () => {
  const { dir, admin, saved } = setup([{ name: "c", adapter: "custom" }]);
  const info = await admin.put("custom", withMarker("v1"));
  assert.deepEqual([info.name, info.bundled, info.usedBy], ["custom", false, ["c"]]);
  const file = join(dir, "custom.lua");
  assert.equal(readFileSync(file, "utf8"), withMarker("v1"));
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(saved, ["custom"]);
  assert.ok(!readdirSync(dir).some((f) => f.endsWith(".tmp")), "no temporary file left behind");

  await admin.put("openai", withMarker("edited"));
  assert.equal(admin.get("openai")?.info.bundled, false);
  await admin.put("openai", OPENAI);
  assert.equal(admin.get("openai")?.info.bundled, true, "the shipped text again");
});

test("put: scripts that fail to load or are no adapter are refused with the reason; nothing is written", async () => {
  const { dir, admin, saved } = setup();
  await admin.put("custom", withMarker("good"));
  const cases: Array<[string, RegExp]> = [
    ["return {", /adapter custom was not saved: .*(expected|unexpected|near)/],
    ['error("refusing to load")', /refusing to load/],
    ["return 42", /must return a table with transform_request and transform_response/],
    ["return { transform_request = function(b) return b end }", /transform_request and transform_response/],
    [
      'return { transform_request = function(b) return b end, transform_response = function(b) return b end, auth = "basic" }',
      /auth must be one of/,
    ],
    ['local x = import("no_such_library")\nreturn x', /no_such_library/],
    ['local f = io.open("/etc/passwd")\nreturn {}', /adapter custom was not saved/],
  ];
  for (const [code, message] of cases) {
    await assert.rejects(admin.put("custom", code), refusedWith("adapter_invalid", message), code);
    await assert.rejects(admin.put("fresh", code), refusedWith("adapter_invalid"), code);
  }
  assert.equal(readFileSync(join(dir, "custom.lua"), "utf8"), withMarker("good"), "the saved version stays");
  assert.equal(existsSync(join(dir, "fresh.lua")), false);
  assert.deepEqual(saved, ["custom"]);
});

test("put: a script that never finishes loading is stopped at the limit and not saved", async () => {
  const { dir, admin } = setup();
  const hostile = [
    "while true do end",
    "while true do pcall(function() while true do end end) end",
    "setmetatable({}, { __gc = function() while true do end end })\nfor i = 1, 2e6 do local x = { i } end\nreturn {}",
    'return string.find(string.rep("a", 4000), ".-.-.-b")',
  ];
  for (const code of hostile) {
    const started = Date.now();
    await assert.rejects(admin.put("evil", code), refusedWith("adapter_invalid", /adapter evil was not saved/), code);
    assert.ok(Date.now() - started < LIMIT_MS + 3000, `${code}: refused near its limit (${Date.now() - started} ms)`);
  }
  assert.equal(existsSync(join(dir, "evil.lua")), false);
  // The admin works on afterwards.
  assert.equal((await admin.put("evil", withMarker("fine"))).name, "evil");
});

test("put: bad names and oversized scripts are refused before anything runs", async () => {
  const { dir, admin } = setup();
  for (const name of ["", "../x", "a/b", "x.lua", ".hidden", "a b", "x".repeat(65)]) {
    await assert.rejects(admin.put(name, OPENAI), refusedWith("adapter_name_invalid"), name);
  }
  await assert.rejects(
    admin.put("big", `-- ${"x".repeat(MAX_ADAPTER_BYTES)}\n${OPENAI}`),
    refusedWith("too_large", /at most 256 KiB/),
  );
  assert.equal(existsSync(join(dir, "big.lua")), false);
  await assert.rejects(admin.put("x", 42 as unknown as string), refusedWith("adapter_invalid", /must be a string/));
});

test("delete: refused for shipped adapters and for adapters a source uses; true once, then false", async () => {
  const { dir, admin } = setup([{ name: "c", adapter: "custom" }]);
  await admin.put("custom", withMarker("x"));
  await admin.put("spare", withMarker("y"));
  assert.throws(() => admin.delete("openai"), refusedWith("adapter_bundled", /shipped with HomeAgent/));
  assert.throws(() => admin.delete("custom"), refusedWith("adapter_in_use", /used by LLM source c/));
  assert.ok(existsSync(join(dir, "openai.lua")));
  assert.ok(existsSync(join(dir, "custom.lua")));
  assert.equal(admin.delete("spare"), true);
  assert.equal(existsSync(join(dir, "spare.lua")), false);
  assert.equal(admin.delete("spare"), false);
  assert.throws(() => admin.delete("../openai"), refusedWith("adapter_name_invalid"));
});
