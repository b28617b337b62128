/**
 * `waiter mcp` end to end: a real `homed` that requires an API key, the fake LLM, and the MCP SDK's own
 * Client spawning `waiter mcp` over stdio, as Claude Desktop or Cursor would. A fact told in chat is found
 * by memory_recall; the write tools appear only once the user turns them on, and then `chat` answers with
 * the agent's reply; results and chats are bounded; a wrong or missing key is refused before any MCP talk.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type FakeLLM, startFakeLLM } from "./fixtures/fake-llm.js";
import { CliLines, type HomedProcess, startHomedOn } from "./fixtures/homed-process.js";
import { nodeArgs } from "./fixtures/node-entry.js";
import { tempDir } from "./fixtures/temp-dir.js";
import { runWaiter } from "./fixtures/waiter-process.js";

const KEY = "mcp-stdio-test-key-0123456789";
let fake: FakeLLM;
let homed: HomedProcess;
let cli: CliLines;

before(async () => {
  fake = await startFakeLLM();
  homed = await startHomedOn(tempDir("ha-mcp-stdio-"), {
    HOMEAGENT_LLM_BASE_URL: fake.url,
    HOMEAGENT_LLM_MODEL: "fake-model",
    HOMEAGENT_API_KEY: KEY,
  });
  cli = await CliLines.open(homed.socket);
  assert.equal(await cli.text(`/auth ${KEY}`), "authenticated");
});

after(async () => {
  cli?.close();
  await homed?.stop();
  await fake?.close();
});

/** The environment a user's MCP client config gives waiter: the key, and nothing of the test runner's. */
function waiterEnv(key: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  env.HOMEAGENT_SOCKET = "";
  env.HOMEAGENT_API_KEY = key ?? "";
  return env;
}

function waiterTransport(key?: string): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: nodeArgs("src/bin/waiter.ts", "--socket", homed.socket, "mcp"),
    env: waiterEnv(key),
    stderr: "pipe",
  });
}

async function mcpClient(): Promise<Client> {
  const client = new Client({ name: "mcp-stdio-test", version: "1.0.0" });
  await client.connect(waiterTransport(KEY));
  return client;
}

/** The text of a tool result, and whether it was an error. */
function text(result: Awaited<ReturnType<Client["callTool"]>>): { text: string; isError: boolean } {
  const content = result.content as Array<{ type: string; text: string }>;
  assert.equal(content.length, 1);
  assert.equal(content[0].type, "text");
  return { text: content[0].text, isError: result.isError === true };
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();

describe("waiter mcp", () => {
  let client: Client;
  before(async () => {
    client = await mcpClient();
  });
  after(() => client?.close());

  test("memory_recall finds a fact told in chat; only the read tools are offered, with the kernel's schemas", async () => {
    fake.enqueue(
      {
        toolCalls: [
          {
            name: "memory_commit",
            arguments: { triples: [{ subject: "Alice", relation: "favourite tea", object: "genmaicha" }] },
          },
        ],
      },
      { text: "Noted." },
    );
    assert.equal(await cli.text("Alice's favourite tea is genmaicha"), "Noted.");

    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["doc_query", "knowledge_search", "memory_recall"]);
    const recallDef = tools.find((t) => t.name === "memory_recall");
    assert.ok(recallDef?.inputSchema.properties?.query_intent, "the kernel's own parameters");

    const recall = text(await client.callTool({ name: "memory_recall", arguments: { query_intent: "Alice" } }));
    assert.equal(recall.isError, false, recall.text);
    assert.match(recall.text, /genmaicha/);
  });

  test("doc_query reads documents without taking them out of memory: found again on a second call", async () => {
    fake.enqueue(
      {
        toolCalls: [
          { name: "doc_commit", arguments: { content: "The vault combination is 31-12-77.", summary: "vault note" } },
        ],
      },
      { text: "Kept." },
    );
    assert.equal(await cli.text("keep this: the vault combination is 31-12-77"), "Kept.");
    for (const round of [1, 2]) {
      const found = text(await client.callTool({ name: "doc_query", arguments: { query: "vault combination" } }));
      assert.equal(found.isError, false, found.text);
      assert.match(found.text, /31-12-77/, `round ${round}`);
    }
  });

  test("arguments are checked against the kernel tool's schema; a write tool that is off is a tool error", async () => {
    const bad = text(await client.callTool({ name: "memory_recall", arguments: { depth: "deep" } }));
    assert.equal(bad.isError, true);
    assert.match(bad.text, /invalid arguments for memory_recall/);
    const off = text(await client.callTool({ name: "chat", arguments: { message: "hi" } }));
    assert.equal(off.isError, true);
    assert.match(off.text, /chat is turned off for MCP clients.*plugin\.mcp_server\.write_tools/);
  });

  test("write_tools is checked when it is written: a name that is not a write tool is refused", async () => {
    const refused = await cli.ask("/settings set plugin.mcp_server.write_tools memory_commit,cmd_run");
    assert.equal(refused.type, "error");
    assert.match(String(refused.error), /plugin\.mcp_server\.write_tools.*nothing was changed/);
    assert.deepEqual(await names(client), ["doc_query", "knowledge_search", "memory_recall"]);
  });

  test("turned on, the write tools are listed and chat answers with the agent's reply", async () => {
    assert.match(await cli.text("/settings set plugin.mcp_server.write_tools chat,memory_commit"), /updated/);
    try {
      assert.deepEqual(await names(client), [
        "chat",
        "doc_query",
        "knowledge_search",
        "memory_commit",
        "memory_recall",
      ]);
      fake.enqueue({ text: "Hello from your HomeAgent." });
      const reply = text(await client.callTool({ name: "chat", arguments: { message: "say hello" } }));
      assert.deepEqual(reply, { text: "Hello from your HomeAgent.", isError: false });
      const asked = fake.requests.filter((r) => r.method === "POST").at(-1)?.body;
      assert.match(JSON.stringify(asked?.messages), /say hello/);
    } finally {
      await cli.text("/settings set plugin.mcp_server.write_tools none");
    }
  });
});

describe("waiter mcp is bounded", () => {
  let client: Client;
  before(async () => {
    await cli.text("/settings set plugin.mcp_server.write_tools chat");
    client = await mcpClient();
  });
  after(async () => {
    await client?.close();
    await cli.text("/settings set plugin.mcp_server.write_tools none");
    await cli.text("/settings set plugin.mcp_server.chat_timeout 120");
  });

  test("a big result is cut, with a note saying how much was left out", async () => {
    fake.enqueue({ text: "y".repeat(80_000), pieceChars: 8192 });
    const reply = text(await client.callTool({ name: "chat", arguments: { message: "write a lot" } }));
    assert.equal(reply.isError, false);
    assert.ok(reply.text.startsWith("y".repeat(50_000)));
    assert.match(reply.text, /\n\[cut: 30000 more characters not shown \(at most 50000 per result\)/);
  });

  test("a chat that outlasts plugin.mcp_server.chat_timeout is stopped, and says so", async () => {
    await cli.text("/settings set plugin.mcp_server.chat_timeout 1");
    fake.enqueue({ text: "too late", delayMs: 8_000 });
    const started = Date.now();
    const reply = text(await client.callTool({ name: "chat", arguments: { message: "take your time" } }));
    assert.equal(reply.isError, true);
    assert.match(reply.text, /did not answer within 1 s and was stopped \(plugin\.mcp_server\.chat_timeout\)/);
    assert.ok(Date.now() - started < 6_000, "answered at the time limit, not when the LLM would have");
  });
});

describe("waiter mcp and the API key", () => {
  test("a wrong key: the MCP client cannot initialize, and waiter exits 1 saying why, with nothing on stdout", async () => {
    const client = new Client({ name: "mcp-stdio-test", version: "1.0.0" });
    await assert.rejects(client.connect(waiterTransport("not-the-key")));
    const run = await runWaiter(["--socket", homed.socket, "mcp"], { HOMEAGENT_API_KEY: "not-the-key" });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /homed rejected the API key/);
    assert.equal(run.stdout, "");
  });

  test("no key where homed requires one: waiter exits 1 and names the variable to set", async () => {
    const run = await runWaiter(["--socket", homed.socket, "mcp"]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /requires an API key.*HOMEAGENT_API_KEY/);
    assert.equal(run.stdout, "");
  });

  test("with the key and its stdin closed at once, waiter mcp ends cleanly", async () => {
    const run = await runWaiter(["--socket", homed.socket, "mcp"], { HOMEAGENT_API_KEY: KEY });
    assert.deepEqual({ code: run.code, stdout: run.stdout }, { code: 0, stdout: "" }, run.stderr);
  });
});
