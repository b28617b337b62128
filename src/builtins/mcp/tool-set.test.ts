/**
 * One server's tools in the daemon (mock SDK): registered as `<server>_<tool>` with the server's schema
 * (its texts cleaned) under an object top level; a second tool that meets the first's name is left out with
 * the reason; a disabled tool is listed but not registered; a changed list registers only what changed and
 * drops what is gone; clearing unregisters everything.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createMockSDK } from "@homeagent/sdk/test";
import type { McpTool } from "./connection.js";
import { McpToolSet } from "./tool-set.js";

const tool = (name: string, extra: Partial<McpTool> = {}): McpTool => ({
  name,
  description: `does ${name}`,
  inputSchema: { type: "object", properties: { q: { type: "string", description: "the \u200bquery\u001b" } } },
  ...extra,
});

test("registers, leaves out with reasons, follows changes and clears", () => {
  const sdk = createMockSDK({ pluginName: "mcp" });
  const calls: string[] = [];
  const set = new McpToolSet(sdk, "srv", (t) => () => calls.push(t.name), new Set(["off"]));
  set.sync([tool("a.b"), tool("a_b"), tool("off"), tool("plain", { inputSchema: {} })]);
  assert.deepEqual([...sdk.tools.keys()].sort(), ["srv_a_b", "srv_plain"]);
  const ab = sdk.tools.get("srv_a_b")?.def;
  assert.equal(ab?.description, "[MCP/srv] does a.b");
  assert.deepEqual(ab?.parameters, { type: "object", properties: { q: { type: "string", description: "the query" } } });
  assert.deepEqual(sdk.tools.get("srv_plain")?.def.parameters, { type: "object", properties: {} });
  const listed = set.tools();
  assert.match(String(listed.find((t) => t.tool === "a_b")?.problem), /same as another tool's/);
  assert.equal(listed.find((t) => t.tool === "off")?.enabled, false);

  const before = sdk.tools.get("srv_plain");
  set.sync([tool("plain", { inputSchema: {} }), tool("new")]);
  assert.deepEqual([...sdk.tools.keys()].sort(), ["srv_new", "srv_plain"]);
  assert.equal(sdk.tools.get("srv_plain"), before, "an unchanged tool is left registered as it was");

  set.disable(new Set(["new"]));
  assert.deepEqual([...sdk.tools.keys()], ["srv_plain"]);
  set.clear();
  assert.equal(sdk.tools.size, 0);
  assert.equal(set.count(), 0);
});

test("a tool re-listed with other annotations is registered anew; one with hidden characters in a name is left out", () => {
  const sdk = createMockSDK({ pluginName: "mcp" });
  const set = new McpToolSet(sdk, "srv", () => () => "ok", new Set());
  set.sync([tool("act", { annotations: { readOnlyHint: true } })]);
  const first = sdk.tools.get("srv_act");
  set.sync([tool("act", { annotations: { destructiveHint: true } })]);
  assert.notEqual(sdk.tools.get("srv_act"), first, "the handler that decides on approvals is the new one");

  set.sync([
    tool("sneaky", { inputSchema: { type: "object", properties: { "path\u202e": { type: "string" } } } }),
    tool("choices", { inputSchema: { type: "object", properties: { mode: { enum: ["a", "b\u200b"] } } } }),
    tool("prose", {
      inputSchema: {
        type: "object",
        properties: { q: { type: "string", default: "x\u001b[2J", examples: ["\ufe0fy"] } },
      },
    }),
  ]);
  assert.deepEqual([...sdk.tools.keys()], ["srv_prose"]);
  assert.deepEqual(sdk.tools.get("srv_prose")?.def.parameters, {
    type: "object",
    properties: { q: { type: "string", default: "x[2J", examples: ["y"] } },
  });
  const problems = Object.fromEntries(set.tools().map((t) => [t.tool, t.problem]));
  assert.match(String(problems.sneaky), /a name with hidden characters/);
  assert.match(String(problems.choices), /hidden characters in "b"/);
});

test("a server gets no more than its share of the plugin's tools; the rest are listed with why", () => {
  const sdk = createMockSDK({ pluginName: "mcp" });
  const set = new McpToolSet(
    sdk,
    "big",
    () => () => "ok",
    new Set(),
    () => 3,
  );
  set.sync(["a", "b", "c", "d", "e"].map((name) => tool(name)));
  assert.deepEqual([...sdk.tools.keys()], ["big_a", "big_b", "big_c"]);
  assert.match(String(set.tools().find((t) => t.tool === "e")?.problem), /over this server's share of tools \(3\)/);
});
