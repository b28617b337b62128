/**
 * docs/plugin-protocol.md is the whole contract for plugins in other languages, so it must not fall
 * behind the code: every PluginSDK member that crosses the wire has a row with its capability, the
 * protocol version it describes is the one the daemon speaks, and the launch facts and limits it states
 * are the ones the daemon uses.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import { MAX_FRAME_BYTES, PROTOCOL_VERSION } from "@homeagent/sdk/protocol";
import { CLEANER_TIMEOUT_MS } from "../src/kernel/turn-events.js";
import { SDK_CAPABILITIES, type SdkMember } from "../src/plugins/capabilities.js";
import { PARENT_DEATH_ENV, pluginCommand } from "../src/plugins/proc/spawn.js";

const DOC = readFileSync(new URL("../docs/plugin-protocol.md", import.meta.url), "utf8");
/** Given in plugin.init, not methods. */
const NOT_METHODS = new Set<SdkMember>(["pluginName", "dataDir", "daemonDataDir"]);

test("the protocol document has a row naming the capability of every core.* method", () => {
  const rows = DOC.split("\n").filter((line) => line.startsWith("| `core."));
  const missing = Object.entries(SDK_CAPABILITIES)
    .filter(([member]) => !NOT_METHODS.has(member as SdkMember))
    .filter(([member, capability]) => !rows.some((row) => row.startsWith(`| \`core.${member}\` | ${capability}`)))
    .map(([member, capability]) => `core.${member} (${capability})`);
  assert.deepEqual(missing, []);
});

test("the protocol document describes the version the daemon speaks", () => {
  assert.match(DOC, new RegExp(`^# HomeAgent plugin protocol, version ${PROTOCOL_VERSION}$`, "m"));
  for (const name of NOT_METHODS) assert.ok(DOC.includes(`\`${name}\``), `${name} is explained`);
});

test("the protocol document states how the daemon runs a plugin and the limits it enforces", () => {
  const { args } = pluginCommand("/plugins/hello/plugin.js", "js");
  assert.equal(args[0], "--experimental-detect-module");
  assert.ok(DOC.includes(`node ${args[0]} <sdk>/dist/stdio/runner.js`), "the plugin.js command line");
  assert.ok(DOC.includes(`${PARENT_DEATH_ENV}=KILL`), "the parent-death variable");
  assert.ok(DOC.includes(`(${MAX_FRAME_BYTES.toLocaleString("en-US")} bytes)`), "the frame limit");
  assert.ok(DOC.includes(`the daemon waits ${CLEANER_TIMEOUT_MS / 1000} s`), "the cleaner's wait");
});
