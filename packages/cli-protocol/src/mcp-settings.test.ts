import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMockSDK } from "@homeagent/sdk/test";
import { MCP_WRITE_TOOLS_PATTERN, mcpSettings } from "./mcp-settings.js";

const config = (settings: Record<string, string>) =>
  createMockSDK({
    config: Object.entries(settings).map(([key, value]) => ({ key: `plugin.mcp_server.${key}`, value })),
  }).config;

describe("mcpSettings", () => {
  it("reads what the user set", () => {
    const set = mcpSettings(config({ write_tools: "knowledge_create, chat", http: "true", chat_timeout: "30" }));
    assert.deepEqual([...set.writeTools], ["knowledge_create", "chat"]);
    assert.equal(set.http, true);
    assert.equal(set.chatTimeoutMs, 30_000);
  });

  it("falls back to the safe defaults for missing or unusable values", () => {
    const none = mcpSettings(config({}));
    assert.deepEqual([...none.writeTools], []);
    assert.equal(none.http, false);
    assert.equal(none.chatTimeoutMs, 120_000);
    assert.deepEqual([...mcpSettings(config({ write_tools: "none" })).writeTools], []);
    const odd = mcpSettings(config({ write_tools: "chat,cmd_run", http: "yes", chat_timeout: "9999" }));
    assert.deepEqual([...odd.writeTools], ["chat"]);
    assert.equal(odd.http, false);
    assert.equal(odd.chatTimeoutMs, 120_000);
  });

  it("the write_tools pattern takes a comma list of write tools and nothing else", () => {
    const whole = new RegExp(`^(?:${MCP_WRITE_TOOLS_PATTERN})$`, "u");
    for (const ok of ["none", "chat", "memory_commit,knowledge_create", " chat , memory_commit "])
      assert.ok(whole.test(ok), ok);
    for (const bad of ["memory_recall", "chat,", "chat;memory_commit", "all", "none,chat"])
      assert.ok(!whole.test(bad), bad);
  });
});
