/**
 * The healthcheck built-in in a real daemon, through GET /api/v1/health and waiter's /health: every kind of
 * breakage it must find, each made for real — a plugin whose start throws, a tool whose schema every provider
 * refuses, an LLM source at a closed loopback port (probed), and a search index row corrupted with raw SQL on
 * the daemon's own memory.db — while the healthy parts (the fake LLM source, memory.db itself) pass.
 */
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { definePlugin } from "@homeagent/sdk";
import Database from "better-sqlite3";
import type { HealthReport } from "../src/builtins/healthcheck/check.js";
import type { PluginFactory } from "../src/plugins/registry.js";
import { CliLines } from "./fixtures/homed-process.js";
import { startWebDaemon, TEST_API_KEY, type WebDaemon } from "./fixtures/webui.js";

const broken: PluginFactory = {
  name: "broken",
  capabilities: [],
  create: () =>
    definePlugin({
      name: "broken",
      start: () => {
        throw new Error("no weather station found");
      },
    }),
};

const badTool: PluginFactory = {
  name: "badtool",
  capabilities: [],
  create: () =>
    definePlugin({
      name: "badtool",
      start: (sdk) =>
        sdk.registerTool(
          {
            name: "bad_schema",
            description: "A tool whose schema requires a parameter it does not have.",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["town"] },
          },
          () => "never",
        ),
    }),
};

let w: WebDaemon;

/** A loopback port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function health(query = ""): Promise<HealthReport> {
  const res = await w.json("GET", `/api/v1/health${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as HealthReport;
}

const status = (r: HealthReport, name: string) => r.checks.find((c) => c.name === name)?.status;

before(async () => {
  w = await startWebDaemon({ plugins: [broken, badTool] });
  w.llm.enqueue({ text: "Noted." });
  const chat = await w.json("POST", "/api/v1/chat", { message: "My sister Ana lives in Porto." });
  assert.equal(chat.status, 200, JSON.stringify(chat.body));
});

after(async () => {
  await w?.stop();
});

test("a failed plugin and an invalid tool schema fail the report, the rest passes", async () => {
  const r = await health();
  assert.equal(r.status, "fail");
  const broken = r.checks.find((c) => c.name === "plugin:broken");
  assert.equal(broken?.status, "fail");
  assert.match(broken?.detail ?? "", /no weather station found/);
  const tool = r.checks.find((c) => c.name === "tool:bad_schema");
  assert.equal(tool?.status, "fail");
  assert.match(tool?.detail ?? "", /parameters\.required names "town"/);
  assert.match(tool?.fix ?? "", /belongs to badtool/);
  for (const name of [
    "plugin:webui",
    "plugin:healthcheck",
    "llm:env",
    "memory:database",
    "memory:keyword_index",
    "memory:vector_index",
    "disk",
    "clock",
  ]) {
    assert.equal(status(r, name), "ok", `${name}: ${JSON.stringify(r.checks.find((c) => c.name === name))}`);
  }
});

test("an LLM source at a closed loopback port fails when probed, naming it", async () => {
  const port = await closedPort();
  w.daemon.config.set("core.llm.sources.dead.adapter", "openai");
  w.daemon.config.set("core.llm.sources.dead.model", "fake-model");
  w.daemon.config.set("core.llm.sources.dead.base_url", `http://127.0.0.1:${port}/v1`);
  w.daemon.config.set("core.llm.sources.dead.priority", "99");
  w.llm.enqueue({ text: "OK" });
  const r = await health("?probe=1");
  const dead = r.checks.find((c) => c.name === "llm:dead");
  assert.equal(dead?.status, "fail", JSON.stringify(r.checks.filter((c) => c.name.startsWith("llm"))));
  assert.match(dead?.detail ?? "", /^dead \(fake-model\) did not answer a test request/);
  assert.equal(status(r, "llm:env"), "ok");
});

test("an index row corrupted with raw SQL on memory.db fails the memory check", async () => {
  const raw = new Database(join(w.daemon.paths.root, "memory.db"), { timeout: 5_000 });
  try {
    const row = raw.prepare<[], { id: string }>("SELECT id FROM search_items ORDER BY rowid LIMIT 1").get();
    assert.ok(row, "the chat turn left an item in the index");
    raw.prepare("UPDATE search_items SET terms = 'zebra quartz' WHERE id = ?").run(row.id);
    const r = await health();
    const keyword = r.checks.find((c) => c.name === "memory:keyword_index");
    assert.equal(keyword?.status, "fail");
    assert.ok(keyword?.detail.includes(`item ${row.id}: its keyword terms do not match its text`), keyword?.detail);
    assert.equal(status(r, "memory:database"), "ok");
  } finally {
    raw.close();
  }
});

test("/api/v1/health needs credentials like every route", async () => {
  const res = await fetch(`${w.base}/api/v1/health`);
  assert.equal(res.status, 401);
});

test("waiter's /health lists the failures with what to do", async () => {
  const cli = await CliLines.open(join(w.daemon.paths.root, "cli.sock"));
  try {
    assert.equal(await cli.text(`/auth ${TEST_API_KEY}`), "authenticated");
    const text = await cli.text("/health", 30_000);
    assert.match(text, /^FAIL: \d+ failed, \d+ warnings, \d+ ok \(\d+ ms\)/);
    assert.match(text, /✗ plugin:broken: failed to load or start: .*no weather station found\n {4}→ /);
    assert.match(await cli.text("/health badtool", 30_000), /✗ tool:bad_schema/);
  } finally {
    cli.close();
  }
});
