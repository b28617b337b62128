/**
 * `/api/v1/mcp/servers` over real HTTP against a real daemon talking to the fixture MCP server over stdio:
 * the list with state, log and tools, a restart (with the API key, and with a login that must send its CSRF
 * token), 404 for a server not configured, 401 without credentials, and 503 while the mcp plugin is off.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { entryPath, NODE_FLAGS } from "../../../../test/fixtures/node-entry.js";
import { waitFor } from "../../../../test/fixtures/wait.js";
import { startWebDaemon, type WebDaemon } from "../../../../test/fixtures/webui.js";

let w: WebDaemon;
before(async () => {
  w = await startWebDaemon();
  w.daemon.config.set(
    "plugin.mcp.servers",
    JSON.stringify({
      fixture: { command: process.execPath, args: [...NODE_FLAGS, entryPath("test/fixtures/mcp-server.ts"), "stdio"] },
    }),
  );
  await waitFor(() => w.daemon.agent.tools.names().includes("fixture_weather"), "the fixture's tools", {
    timeoutMs: 30_000,
  });
});
after(() => w.stop());

interface Server {
  name: string;
  state: string;
  restarts: number;
  server?: string;
  log: string[];
  disabled: boolean;
  tools: Array<{ name: string; tool: string; enabled: boolean; hints: { readOnlyHint?: boolean } }>;
}

const list = async (): Promise<Server[]> => {
  const res = await w.json("GET", "/api/v1/mcp/servers");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.servers;
};

describe("mcp servers", () => {
  test("lists each server with its state, version, log and tools", async () => {
    const [fixture] = await list();
    assert.equal(fixture.name, "fixture");
    assert.equal(fixture.state, "running");
    assert.match(String(fixture.server), /fixture/);
    assert.ok(Array.isArray(fixture.log));
    assert.equal(fixture.disabled, false);
    const weather = fixture.tools.find((t) => t.tool === "weather");
    assert.deepEqual(
      { name: weather?.name, enabled: weather?.enabled, readOnly: weather?.hints.readOnlyHint },
      { name: "fixture_weather", enabled: true, readOnly: true },
    );
  });

  test("restart starts the server anew; an unknown one is 404; none without credentials", async () => {
    const res = await w.json("POST", "/api/v1/mcp/servers/fixture/restart");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { restarted: "fixture" });
    await waitFor(async () => (await list())[0]?.state === "running", "the fixture running again", {
      timeoutMs: 30_000,
    });
    const unknown = await w.json("POST", "/api/v1/mcp/servers/nope/restart");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, "not_found");
    assert.equal((await fetch(`${w.base}/api/v1/mcp/servers`)).status, 401);
  });

  test("a login restarts only with its CSRF token", async () => {
    const { cookie, csrf } = await w.login();
    const restart = (headers: Record<string, string>) =>
      fetch(`${w.base}/api/v1/mcp/servers/fixture/restart`, {
        method: "POST",
        headers: { Cookie: cookie, ...headers },
      });
    const refused = await restart({});
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, "csrf_failed");
    assert.equal((await restart({ "X-CSRF-Token": csrf })).status, 200);
  });

  test("503 with what to do while the mcp plugin is not running", async () => {
    await w.daemon.plugins.disable("mcp");
    try {
      for (const [method, path] of [
        ["GET", "/api/v1/mcp/servers"],
        ["POST", "/api/v1/mcp/servers/fixture/restart"],
      ]) {
        const res = await w.json(method, path);
        assert.equal(res.status, 503, path);
        assert.equal(res.body.error.code, "unavailable");
        assert.match(res.body.error.message, /mcp plugin is not running/);
      }
    } finally {
      await w.daemon.plugins.enable("mcp");
    }
  });
});
