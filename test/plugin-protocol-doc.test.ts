/**
 * docs/plugin-protocol.md is the whole contract for plugins in other languages, so it must not fall
 * behind the code: every PluginSDK member that crosses the wire has a row with its capability, and the
 * protocol version it describes is the one the daemon speaks.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import test from "node:test";
import { PROTOCOL_VERSION } from "@homeagent/sdk/protocol";
import { SDK_CAPABILITIES, type SdkMember } from "../src/plugins/capabilities.js";

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
