/**
 * `/api/v1/plugins`, `/api/v1/status`, `/api/v1/kernel` and `/api/v1/runtime` over real HTTP against a
 * real daemon with every built-in plugin: listing, disable/enable/reload/restart with their refusals, and the
 * status figures (sources, plugins, memory, bus and SSE counters).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startWebDaemon, type WebDaemon } from "../../../../test/fixtures/webui.js";

let w: WebDaemon;
before(async () => {
  w = await startWebDaemon();
});
after(() => w.stop());

describe("plugins", () => {
  test("lists every plugin with its state, health and capabilities", async () => {
    const res = await w.json("GET", "/api/v1/plugins");
    assert.equal(res.status, 200);
    const names = res.body.plugins.map((p: { name: string }) => p.name);
    assert.ok(names.includes("cli") && names.includes("webui"), names.join(","));
    const webui = res.body.plugins.find((p: { name: string }) => p.name === "webui");
    assert.equal(webui.state, "running");
    assert.equal(webui.health, "ok");
    assert.ok(webui.capabilities.includes("auth"));
  });

  test("disable and enable another plugin answer its new state", async () => {
    const off = await w.json("POST", "/api/v1/plugins/cli/disable");
    assert.equal(off.status, 200);
    assert.equal(off.body.plugin.state, "disabled");
    const on = await w.json("POST", "/api/v1/plugins/cli/enable");
    assert.equal(on.status, 200);
    assert.equal(on.body.plugin.state, "running");
  });

  test("restart answers the plugin running again, started anew; a disabled one is 409 and stays disabled", async () => {
    const before = (await w.json("GET", "/api/v1/plugins")).body.plugins.find(
      (p: { name: string }) => p.name === "cli",
    );
    assert.equal(typeof before.startedAt, "number", "a running plugin says when it started");
    const res = await w.json("POST", "/api/v1/plugins/cli/restart");
    assert.equal(res.status, 200);
    assert.equal(res.body.plugin.state, "running");
    assert.ok(res.body.plugin.startedAt >= before.startedAt);
    assert.equal(
      (await w.json("POST", "/api/v1/plugins/cli/disable")).body.plugin.startedAt,
      undefined,
      "not while stopped",
    );
    const refused = await w.json("POST", "/api/v1/plugins/cli/restart");
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, "plugin_disabled");
    assert.equal((await w.json("POST", "/api/v1/plugins/cli/enable")).body.plugin.state, "running");
  });

  test("refusals: the web UI cannot disable or restart itself (409), unknown plugins 404, unknown actions 404", async () => {
    const self = await w.json("POST", "/api/v1/plugins/webui/disable");
    assert.equal(self.status, 409);
    assert.equal(self.body.error.code, "plugin_self_disable");
    const restart = await w.json("POST", "/api/v1/plugins/webui/restart");
    assert.equal(restart.status, 409);
    assert.equal(restart.body.error.code, "plugin_self_restart");
    assert.equal((await w.json("POST", "/api/v1/plugins/cli/constructor")).status, 404);
    const unknown = await w.json("POST", "/api/v1/plugins/nope/enable");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, "plugin_not_found");
    assert.equal((await w.json("POST", "/api/v1/plugins/cli/explode")).status, 404);
  });

  test("reload: all external plugins with no body, one by name; built-ins are not reloadable (409)", async () => {
    const all = await w.fetch("/api/v1/plugins/reload", { method: "POST" });
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys((await all.json()) as object).sort(), [
      "added",
      "failed",
      "reloaded",
      "removed",
      "unchanged",
    ]);
    const builtin = await w.json("POST", "/api/v1/plugins/reload", { name: "cli" });
    assert.equal(builtin.status, 409);
    assert.equal(builtin.body.error.code, "plugin_not_reloadable");
    assert.equal((await w.json("POST", "/api/v1/plugins/reload", { name: 5 })).status, 400);
    assert.equal((await w.json("POST", "/api/v1/plugins/reload", { name: "x".repeat(200) })).status, 400);
  });
});

describe("status, kernel and runtime", () => {
  test("status is the small polling answer", async () => {
    const res = await w.json("GET", "/api/v1/status");
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ["busy", "queued", "running", "startedAt", "uptimeS", "version"]);
    assert.equal(res.body.running, true);
    assert.equal(res.body.busy, false);
    assert.ok(res.body.startedAt <= Date.now());
  });

  test("kernel: status, sources, plugins, memory sizes, SSE counters and the last context", async () => {
    w.llm.enqueue({ text: "hello" });
    await w.daemon.agent.injectInputSync("test", "test", "hi");
    const res = await w.json("GET", "/api/v1/kernel");
    assert.equal(res.status, 200);
    const { status, llm, plugins, memory, sse, context } = res.body;
    assert.ok(status.version);
    assert.ok(status.events.published > 0, JSON.stringify(status.events));
    assert.equal(llm[0].name, "env");
    assert.equal(llm[0].state, "ready");
    assert.ok(plugins.some((p: { name: string }) => p.name === "webui"));
    assert.equal(typeof memory.documents, "number");
    assert.equal(sse.maxClients, 64);
    assert.equal(typeof sse.dropped, "number");
    assert.ok(context === null || Array.isArray(context.sections));
    assert.ok(context?.sections.length > 0, "the turn's context is reported");
  });

  test("runtime: uptime, queue, sources, plugin health, bus and SSE counters, process memory", async () => {
    const res = await w.json("GET", "/api/v1/runtime");
    assert.equal(res.status, 200);
    const body = res.body;
    assert.equal(typeof body.uptimeS, "number");
    assert.equal(typeof body.queued, "number");
    assert.equal(body.llm[0].name, "env");
    assert.ok(body.plugins.every((p: { health: string }) => p.health === "ok"));
    assert.equal(typeof body.events.subscribers, "number");
    assert.equal(typeof body.sse.clients, "number");
    assert.ok(body.process.rssBytes > 0);
  });
});
