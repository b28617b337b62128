/**
 * /mcp end to end: a real daemon with every built-in, its web server on 127.0.0.1, and the MCP SDK's own
 * Client over StreamableHTTPClientTransport. Off by default; once on, only the API key as a bearer token
 * opens it (the dashboard's session cookie is refused 401), the Host guard and the JSON body limit hold as on
 * every route, and the tools are the same as `waiter mcp`'s: read-only unless the user turns writes on.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { rawRequest, startWebDaemon, type WebDaemon } from "./fixtures/webui.js";

let web: WebDaemon;

before(async () => {
  web = await startWebDaemon();
});
after(() => web?.stop());

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
});
const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };

function mcpClient(headers: Record<string, string>): { client: Client; transport: StreamableHTTPClientTransport } {
  const transport = new StreamableHTTPClientTransport(new URL(`${web.base}/mcp`), { requestInit: { headers } });
  return { client: new Client({ name: "mcp-http-test", version: "1.0.0" }), transport };
}

const bearer = () => ({ Authorization: `Bearer ${web.apiKey}` });

async function setting(key: string, value: string | null): Promise<void> {
  const res = await web.json("PUT", "/api/v1/settings", { key, value });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

test("/mcp is off by default: 404 naming the setting that turns it on", async () => {
  const res = await fetch(`${web.base}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...bearer() },
    body: INITIALIZE,
  });
  assert.equal(res.status, 404);
  const body = (await res.json()) as { error: { message: string } };
  assert.match(
    body.error.message,
    /MCP over HTTP is off: turn it on with \/settings set plugin\.mcp_server\.http true/,
  );
  const { client, transport } = mcpClient(bearer());
  await assert.rejects(client.connect(transport));
});

describe("/mcp turned on", () => {
  before(() => setting("plugin.mcp_server.http", "true"));
  after(() => setting("plugin.mcp_server.http", null));

  test("a session cookie alone is refused 401, CSRF token or not; so is an MCP client holding only the cookie", async () => {
    const { cookie, csrf } = await web.login();
    const attempts: Array<Record<string, string>> = [{ Cookie: cookie }, { Cookie: cookie, "X-CSRF-Token": csrf }];
    for (const headers of attempts) {
      const res = await fetch(`${web.base}/mcp`, {
        method: "POST",
        headers: { ...MCP_HEADERS, ...headers },
        body: INITIALIZE,
      });
      assert.equal(res.status, 401);
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, "unauthorized");
      assert.match(body.error.message, /\/mcp takes only the API key: send Authorization: Bearer/);
    }
    const { client, transport } = mcpClient({ Cookie: cookie, "X-CSRF-Token": csrf });
    await assert.rejects(client.connect(transport));
  });

  test("the bearer key opens it: the read tools are listed, and memory_recall finds a committed fact", async () => {
    const committed = await web.json("POST", "/api/v1/memory", {
      triples: [{ subject: "Bob", relation: "plays", object: "the bassoon" }],
    });
    assert.equal(committed.status, 200, JSON.stringify(committed.body));
    const { client, transport } = mcpClient(bearer());
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ["doc_query", "knowledge_search", "memory_recall"]);
      const recall = await client.callTool({ name: "memory_recall", arguments: { query_intent: "Bob" } });
      const content = recall.content as Array<{ type: string; text: string }>;
      assert.notEqual(recall.isError, true, content[0]?.text);
      assert.match(content[0].text, /bassoon/);
      const off = await client.callTool({ name: "knowledge_create", arguments: { name: "x", content: "y" } });
      assert.equal(off.isError, true);
    } finally {
      await client.close();
    }
  });

  test("write tools turned on are served here too: chat answers with the agent's reply", async () => {
    await setting("plugin.mcp_server.write_tools", "chat");
    const { client, transport } = mcpClient(bearer());
    await client.connect(transport);
    try {
      web.llm.enqueue({ text: "Hi over HTTP." });
      const reply = await client.callTool({ name: "chat", arguments: { message: "hello" } });
      assert.deepEqual(reply.content, [{ type: "text", text: "Hi over HTTP." }]);
    } finally {
      await client.close();
      await setting("plugin.mcp_server.write_tools", null);
    }
  });

  test("the Host guard and the JSON body limit hold as on every route", async () => {
    const port = new URL(web.base).port;
    const foreign = await rawRequest(web.base, {
      method: "POST",
      path: "/mcp",
      headers: { ...MCP_HEADERS, ...bearer(), Host: `evil.example:${port}` },
      body: INITIALIZE,
    });
    assert.equal(foreign.status, 403);
    assert.match(foreign.body, /host_not_allowed/);
    const big = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { pad: "x".repeat(1_100_000) } });
    const res = await fetch(`${web.base}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, ...bearer() }, body: big });
    assert.equal(res.status, 413);
  });
});
