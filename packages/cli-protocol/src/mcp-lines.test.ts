import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mcpCallLine, parseMcpLine } from "./mcp-lines.js";

describe("the /mcp lines", () => {
  it("a call written by mcpCallLine reads back the same, on one line", () => {
    const line = mcpCallLine("memory_recall", { query_intent: "a\nb" });
    assert.ok(!line.includes("\n"));
    assert.deepEqual(parseMcpLine(line.slice("/mcp".length)), {
      call: { name: "memory_recall", arguments: { query_intent: "a\nb" } },
    });
    assert.deepEqual(parseMcpLine(" tools"), { tools: true });
  });

  it("a malformed line is refused with the usage", () => {
    assert.throws(() => parseMcpLine(" call {oops"), /the call is not JSON .*usage: \/mcp tools/);
    assert.throws(() => parseMcpLine(' call {"arguments": {}}'), /needs a "name"/);
    assert.throws(() => parseMcpLine(' call {"name": "x", "arguments": []}'), /needs a "name"/);
    assert.throws(() => parseMcpLine(" list"), /usage/);
  });
});
