/** The command line of a plugin entry, and the parent-death wrapper. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { COMPILED } from "../../../test/fixtures/node-entry.js";
import { pluginCommand, setprivPath } from "./spawn.js";

test("plugin.bin runs itself", () => {
  assert.deepEqual(pluginCommand("/data/plugins/x/plugin.bin", "bin"), {
    command: "/data/plugins/x/plugin.bin",
    args: [],
  });
});

test("plugin.js runs under the daemon's node through the stdio runner (from TypeScript: through tsx)", () => {
  const { command, args } = pluginCommand("/data/plugins/x/plugin.js", "js");
  assert.equal(command, process.execPath);
  assert.equal(args.at(-1), "/data/plugins/x/plugin.js");
  const runner = args.at(-2) ?? "";
  if (COMPILED) {
    assert.match(runner, /sdk\/src\/stdio\/runner\.js$/, "the compiled tests' SDK: its compiled sources");
    assert.ok(!args.includes("--import"), "plain JavaScript needs no loader");
    return;
  }
  assert.match(runner, /sdk\/src\/stdio\/runner\.ts$/, "from source the SDK resolves to its source");
  const tsx = args[args.indexOf("--import") + 1];
  assert.match(tsx, /^file:\/\/.*tsx/, "tsx by absolute URL: the plugin's cwd has no node_modules");
  assert.ok(args.includes("--conditions=development"));
});

test("setpriv is found once, where it exists", () => {
  const found = setprivPath();
  assert.equal(found !== null, existsSync("/usr/bin/setpriv"));
  assert.equal(setprivPath(), found);
});
