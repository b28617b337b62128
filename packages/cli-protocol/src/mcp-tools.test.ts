import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ToolDef } from "@homeagent/sdk";
import { createMockSDK, type MockSDKOptions } from "@homeagent/sdk/test";
import { callMcpTool, cutResult, MAX_MCP_RESULT_CHARS, mcpTools } from "./mcp-tools.js";

const CALLER = { source: "cli/mcp", channel: "cli" };

const def = (name: string, parameters: ToolDef["parameters"] = { type: "object", properties: {} }): ToolDef => ({
  name,
  description: `the ${name} tool`,
  parameters,
});

/** A daemon with the memory tools registered (and one that is not offered), its MCP settings as given. */
function host(settings: Record<string, string> = {}, opts: MockSDKOptions = {}) {
  const sdk = createMockSDK({
    config: Object.entries(settings).map(([key, value]) => ({ key: `plugin.mcp_server.${key}`, value })),
    ...opts,
  });
  const recall = { type: "object", properties: { query_intent: { type: "string" } } };
  sdk.registerTool(def("memory_recall", recall), (args) => `facts about ${String(args.query_intent)}`);
  // The kernel's doc_query takes what it finds out of the store: MCP clients get their own, which only reads.
  sdk.registerTool(def("doc_query"), () => "taken");
  sdk.registerTool(def("knowledge_search"), () => {
    throw new Error("the knowledge base is closed");
  });
  sdk.registerTool(def("memory_commit"), () => "stored");
  sdk.registerTool(def("knowledge_create"), () => "created");
  sdk.registerTool(def("cmd_run"), () => "ran");
  return sdk;
}

describe("mcpTools", () => {
  it("offers only the read tools by default, with the kernel's own schemas", () => {
    const tools = mcpTools(host());
    assert.deepEqual(tools.map((t) => t.name).sort(), ["doc_query", "knowledge_search", "memory_recall"]);
    const recall = tools.find((t) => t.name === "memory_recall");
    assert.deepEqual(recall?.inputSchema, { type: "object", properties: { query_intent: { type: "string" } } });
    assert.equal(recall?.description, "the memory_recall tool");
  });

  it("adds the write tools the user listed, chat with its own schema", () => {
    const names = mcpTools(host({ write_tools: " chat , memory_commit" })).map((t) => t.name);
    assert.deepEqual(names.sort(), ["chat", "doc_query", "knowledge_search", "memory_commit", "memory_recall"]);
  });
});

describe("callMcpTool", () => {
  it("runs a read tool and answers its text", async () => {
    const result = await callMcpTool(host(), "memory_recall", { query_intent: "Alice" }, CALLER);
    assert.deepEqual(result, { content: [{ type: "text", text: "facts about Alice" }] });
  });

  it("refuses a write tool that is off, saying which setting turns it on", async () => {
    const result = await callMcpTool(host(), "memory_commit", { triples: [] }, CALLER);
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /turned off for MCP clients.*plugin\.mcp_server\.write_tools/);
    const on = await callMcpTool(host({ write_tools: "memory_commit" }), "memory_commit", {}, CALLER);
    assert.deepEqual(on, { content: [{ type: "text", text: "stored" }] });
  });

  it("refuses a tool that is not an MCP tool at all, and a read tool the daemon does not have", async () => {
    const other = await callMcpTool(host({ write_tools: "chat" }), "cmd_run", {}, CALLER);
    assert.equal(other.isError, true);
    assert.match(other.content[0].text, /no MCP tool "cmd_run"/);
    const bare = createMockSDK();
    const missing = await callMcpTool(bare, "memory_recall", {}, CALLER);
    assert.equal(missing.isError, true);
    assert.match(missing.content[0].text, /not available right now/);
  });

  it("turns a failing tool into a tool error with its message", async () => {
    const result = await callMcpTool(host(), "knowledge_search", { query: "x" }, CALLER);
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /the knowledge base is closed/);
  });

  it("doc_query searches the documents through docMemory, never the kernel's tool that takes them", async () => {
    const found = [
      {
        id: "d1",
        summary: "vault",
        content: "31-12-77",
        tags: [],
        entities: [],
        source: "manual",
        createdAt: 0,
        updatedAt: 0,
        accessCount: 0,
        tsStart: 0,
        tsEnd: 0,
      },
    ];
    const sdk = host({}, { docMemory: { query: async () => found } });
    const result = await callMcpTool(sdk, "doc_query", { query: "vault" }, CALLER);
    assert.match(result.content[0].text, /"content":"31-12-77"/);
    assert.ok(!result.content[0].text.includes("taken"));
    assert.equal((await callMcpTool(sdk, "doc_query", { query: "vault", top_k: 99 }, CALLER)).isError, true);
  });

  it("cuts a big result, with a note of what was left out", async () => {
    const sdk = host();
    sdk.unregisterTool("memory_recall");
    sdk.registerTool(def("memory_recall"), () => "x".repeat(MAX_MCP_RESULT_CHARS + 1234));
    const text = (await callMcpTool(sdk, "memory_recall", {}, CALLER)).content[0].text;
    assert.ok(text.startsWith("x".repeat(MAX_MCP_RESULT_CHARS)));
    assert.match(text, /\[cut: 1234 more characters not shown/);
  });

  it("chat is a turn through the agent on the caller's source and channel, and comes back with its reply", async () => {
    const sdk = host({ write_tools: "chat" }, { respond: (input) => `you said: ${input.text}` });
    const result = await callMcpTool(sdk, "chat", { message: "hello" }, CALLER);
    assert.deepEqual(result, { content: [{ type: "text", text: "you said: hello" }] });
    assert.equal(sdk.inputs[0].source, "cli/mcp");
    assert.equal(sdk.inputs[0].channel, "cli");
    const empty = await callMcpTool(sdk, "chat", { message: " " }, CALLER);
    assert.equal(empty.isError, true);
    assert.match(empty.content[0].text, /"message" is required/);
  });

  it("a chat that outlasts plugin.mcp_server.chat_timeout is stopped and answered as an error", async () => {
    let cancelled = false;
    const sdk = host(
      { write_tools: "chat", chat_timeout: "1" },
      {
        respond: (input) =>
          new Promise((resolve) =>
            input.opts?.signal?.addEventListener("abort", () => {
              cancelled = true;
              resolve({ error: "cancelled" });
            }),
          ),
      },
    );
    const result = await callMcpTool(sdk, "chat", { message: "think hard" }, CALLER);
    assert.equal(result.isError, true);
    assert.match(
      result.content[0].text,
      /did not answer within 1 s and was stopped \(plugin\.mcp_server\.chat_timeout\)/,
    );
    assert.equal(cancelled, true, "the turn itself is cancelled");
  });

  it("a chat whose client goes away is cancelled", async () => {
    const gone = new AbortController();
    const sdk = host(
      { write_tools: "chat" },
      {
        respond: (input) =>
          new Promise((resolve) => input.opts?.signal?.addEventListener("abort", () => resolve({ error: "x" }))),
      },
    );
    const pending = callMcpTool(sdk, "chat", { message: "hi" }, { ...CALLER, signal: gone.signal });
    gone.abort(new Error("the client disconnected"));
    const result = await pending;
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /the client disconnected/);
  });
});

describe("cutResult", () => {
  it("never cuts a surrogate pair in half", () => {
    const cut = cutResult(`ab${"😀".repeat(3)}`, 3);
    assert.ok(cut.startsWith("ab\n[cut: 6 more characters"), cut);
  });
});
