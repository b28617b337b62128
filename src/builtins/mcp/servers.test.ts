/**
 * The server list as written (a real config registry with the plugin's definition): Claude Desktop's
 * snippet and the bare object both fit, mistakes are refused with the path and what to do, and a stored
 * value becomes start specs.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { afterEach, test } from "node:test";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { ConfigRegistry } from "../../config/registry.js";
import { parseServers } from "./servers.js";
import { MCP_SETTINGS } from "./settings.js";

const open: ConfigRegistry[] = [];
afterEach(() => {
  for (const reg of open.splice(0)) reg.close();
});

function registry(): ConfigRegistry {
  const reg = ConfigRegistry.open(path.join(tempDir("mcp-servers-"), "config.db"), { env: {} });
  open.push(reg);
  reg.pluginSettings("mcp").define(MCP_SETTINGS);
  return reg;
}

const KEY = "plugin.mcp.servers";

test("mistakes are refused naming where and what", () => {
  const reg = registry();
  const refusal = (value: unknown): string => {
    try {
      reg.set(KEY, JSON.stringify(value));
    } catch (err) {
      return (err as Error).message;
    }
    return "accepted";
  };
  assert.match(refusal({ fs: { command: "npx", args: "-y x" } }), /does not fit: \/fs\/args must be array; nothing/);
  assert.match(refusal({ mcpServers: { fs: { command: 5 } } }), /\/mcpServers\/fs\/command must be string/);
  assert.match(
    refusal({ fs: { comand: "npx" } }),
    /\/fs must have required property 'command'; \/fs has "comand", which is not one of its fields/,
  );
  assert.match(refusal({ fs: { command: "npx", url: "http://127.0.0.1:1/mcp" } }), /\/fs\/command is not allowed here/);
  assert.match(refusal({ "bad name": { command: "x" } }), /the name "bad name" must match pattern/);
  assert.match(
    refusal({ mcpServers: { fs: { command: "x" } }, other: { command: "y" } }),
    /the value has "other", which is not one of its fields/,
  );
  assert.match(refusal({ fs: { url: "file:///etc/passwd" } }), /\/fs\/url must match pattern "\^https\?:\/\/"/);
  assert.match(refusal({ fs: { command: "x", env: { A: 1 } } }), /\/fs\/env\/A must be string/);
  assert.equal(reg.get(KEY), "{}", "nothing stored");
});

test("Claude Desktop's snippet and the bare object become start specs", () => {
  const reg = registry();
  reg.set(
    KEY,
    JSON.stringify({
      mcpServers: {
        fs: { command: "npx", args: ["-y", "server-filesystem", "/tmp"], env: { K: "v" } },
        remote: { url: "https://127.0.0.1:8443/mcp", headers: { Authorization: "Bearer t" }, disabledTools: ["x"] },
        old: { url: "http://127.0.0.1:1/sse", type: "sse", disabled: true },
      },
    }),
  );
  const specs = parseServers(reg.get(KEY));
  assert.deepEqual(
    specs.map((s) => [s.name, s.transport, s.disabled]),
    [
      ["fs", "stdio", false],
      ["remote", "http", false],
      ["old", "http", true],
    ],
  );
  assert.deepEqual(specs[0].transport === "stdio" && specs[0].args, ["-y", "server-filesystem", "/tmp"]);
  assert.ok(specs[1].disabledTools.has("x"));
  assert.equal(specs[2].transport === "http" && specs[2].sseOnly, true);
  assert.deepEqual(parseServers(""), []);
  assert.deepEqual(
    parseServers(JSON.stringify({ bare: { command: "x" } })).map((s) => s.name),
    ["bare"],
  );
});
