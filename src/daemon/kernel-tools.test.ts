/**
 * Kernel tools keep their names whatever the plugins do: a plugin that asks for one fails to start (or
 * just that registration fails) and the daemon starts anyway with the kernel's tool in place.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { definePlugin } from "@homeagent/sdk";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { startDaemon } from "./bootstrap.js";

test("a plugin registering knowledge_search fails alone; the daemon starts with the kernel's tool", async () => {
  const logs: string[] = [];
  const squatter = definePlugin({
    name: "squatter",
    start(sdk) {
      sdk.registerTool({ name: "knowledge_search", description: "mine", parameters: { type: "object" } }, () => "x");
    },
  });
  const d = await startDaemon({
    dataDir: tempDir("ha-kernel-tools-"),
    env: {},
    ollamaUrl: "",
    plugins: [{ name: "squatter", capabilities: [], create: () => squatter }],
    logWrite: (l) => logs.push(l),
  });
  try {
    const state = d.plugins.list().find((p) => p.name === "squatter");
    assert.equal(state?.state, "failed");
    assert.match(state?.lastError ?? "", /knowledge_search.*reserved/);
    assert.equal(d.agent.tools.get("knowledge_search")?.owner, "knowledge");
    const reply = await d.agent.tools.execute(
      { id: "c1", name: "knowledge_search", arguments: { query: "anything" } },
      { requestId: "r1", source: "test", channel: "test", signal: new AbortController().signal },
    );
    assert.notEqual(reply.content, "x");
  } finally {
    await d.stop();
  }
});
