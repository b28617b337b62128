/**
 * Settings as the running daemon meets them (defect 2): `/settings set` over the real cli socket refuses a
 * bad value with its reason; a config.db with bad values still starts and serves defaults, and the
 * start-up report names every problem; values at the edges of their ranges rebuild the LLM sources cleanly.
 */
import assert from "node:assert/strict";
import { createConnection, type Socket } from "node:net";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { cliSocketPath } from "@homeagent/cli-protocol";
import type { Logger } from "@homeagent/sdk";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { builtinPlugins } from "../builtins/index.js";
import { ConfigRegistry } from "../config/registry.js";
import { type Daemon, type DaemonOptions, startDaemon } from "./bootstrap.js";
import { reportConfig } from "./settings.js";

const daemons: Daemon[] = [];

async function daemon(opts: Partial<DaemonOptions> = {}): Promise<Daemon & { logs: string[] }> {
  const logs: string[] = [];
  const d = await startDaemon({
    dataDir: tempDir("ha-settings-"),
    env: {},
    plugins: [],
    ollamaUrl: "",
    logWrite: (l) => logs.push(l),
    ...opts,
  });
  daemons.push(d);
  return Object.assign(d, { logs });
}

afterEach(async () => {
  for (const d of daemons.splice(0)) await d.stop();
});

/** Sends one line on the cli socket and resolves with the final frame that answers it. */
function ask(socket: Socket, line: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const frame = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
        buffered = buffered.slice(nl + 1);
        if (["response", "error", "settings", "tools"].includes(frame.type as string)) {
          socket.off("data", onData);
          resolve(frame);
          return;
        }
      }
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.write(`${line}\n`);
  });
}

test("/settings set over the cli socket refuses a bad value with the reason and stores nothing", async () => {
  const d = await daemon({ plugins: builtinPlugins() });
  const socket = createConnection(cliSocketPath(d.paths.root));
  try {
    const refused = async (line: string, reason: RegExp) => {
      const frame = await ask(socket, line);
      assert.equal(frame.type, "error", line);
      assert.match(frame.error as string, reason, line);
    };
    await refused(
      "/settings set core.llm.sources.p.priority 99999999999999999999",
      /^config core\.llm\.sources\.p\.priority: "99999999999999999999" is out of range \(allowed: -1000000 to 1000000\); nothing was changed$/,
    );
    await refused("/settings set core.llm.first_byte_timeout 597h", /a timer holds at most 2147483647 ms/);
    await refused("/settings set core.agent.max_tool_turns 0", /is out of range \(allowed: 1 to 1000\)/);
    await refused("/settings set core.llm.sources.p.base_url file:///etc/passwd", /must start with http:\/\/ or https/);
    await refused("/settings set core.llm.base_url http://127.0.0.1:1/v1", /use core\.llm\.sources\.<name>\.base_url/);
    await refused("/settings set plugin.nonexistent.k v", /plugin nonexistent declares no such setting/);
    assert.deepEqual(d.config.sourceNames(), []);
    assert.equal(d.config.getInt("core.agent.max_tool_turns"), 10);

    const ok = await ask(socket, "/settings set core.agent.max_tool_turns 12");
    assert.deepEqual(ok, { type: "response", content: "core.agent.max_tool_turns updated" });
    assert.equal(d.config.getInt("core.agent.max_tool_turns"), 12);
  } finally {
    socket.destroy();
  }
});

const BAD_KEYS = [
  "core.agent.max_tool_turns",
  "core.llm.first_byte_timeout",
  "core.llm.retry_delay",
  "core.llm.sources.p.api_key",
  "core.llm.sources.p.priority",
  "core.llm.temperature",
];

test("a config.db full of bad values starts, serves defaults and reports each problem once", async () => {
  const dataDir = tempDir("ha-settings-");
  // The daemon creates its own config.db; write the bad rows into one made the same way beforehand.
  const file = join(dataDir, "config.db");
  ConfigRegistry.open(file, { env: {} }).close();
  const raw = new Database(file);
  const insert = raw.prepare("INSERT INTO config (key, value) VALUES (?, ?)");
  for (const [key, value] of [
    ["core.llm.sources.p.base_url", "http://127.0.0.1:9/v1"],
    ["core.llm.sources.p.priority", "99999999999999999999"],
    ["core.llm.sources.p.api_key", "sk-hand-edited-secret-9876\u0001"],
    ["core.llm.first_byte_timeout", "597h"],
    ["core.llm.retry_delay", "-1s"],
    ["core.agent.max_tool_turns", "-5"],
    ["core.llm.temperature", "abc"],
  ]) {
    insert.run(key, value);
  }
  raw.close();

  const d = await daemon({ dataDir });
  const [source] = d.llm.sources();
  assert.deepEqual([source.name, source.priority], ["p", 0]);
  assert.equal(d.config.getDuration("core.llm.first_byte_timeout"), 60_000);
  assert.equal(d.agent.status().busy, false);
  // The daemon itself said so at start, once per bad value, and keeps listing them in its status.
  assert.equal(d.logs.filter((l) => l.includes("(in config.db)")).length, 6);
  assert.deepEqual(
    d
      .status()
      .configProblems.map((p) => p.key)
      .sort(),
    BAD_KEYS,
  );

  const logs: string[] = [];
  const log: Logger = {
    debug: () => {},
    info: (m) => logs.push(`INFO ${m}`),
    warn: (m) => logs.push(`WARN ${m}`),
    error: (m) => logs.push(`ERROR ${m}`),
  };
  const events: Record<string, unknown>[] = [];
  const problems = reportConfig(d.config, log, (payload) => events.push(payload));
  assert.deepEqual(
    problems.map((p) => p.key),
    BAD_KEYS,
  );
  assert.equal(logs.filter((l) => l.startsWith("WARN ")).length, 6);
  assert.ok(logs.some((l) => l.includes('config core.llm.first_byte_timeout = "597h" (in config.db)')));
  assert.ok(logs.some((l) => /using the default "60s"/.test(l)));
  assert.ok(!logs.some((l) => l.includes("hand-edited")), "the secret is masked");
  assert.equal(events.length, 1);
  assert.equal(events[0].kind, "config_problems");
  assert.equal((events[0].problems as unknown[]).length, 6);
});

test("source settings at the edges of their ranges rebuild the LLM sources without an error", async () => {
  const d = await daemon();
  const edges: Array<[string, string]> = [
    ["core.llm.sources.a.base_url", "http://127.0.0.1:9/v1"],
    ["core.llm.sources.a.priority", "1000000"],
    ["core.llm.sources.a.priority", "-1000000"],
    ["core.llm.sources.a.max_concurrent", "1024"],
    ["core.llm.sources.a.max_concurrent", "0"],
    ["core.llm.sources.a.context_window", "100000000"],
    ["core.llm.sources.a.thinking_enabled", "true"],
    ["core.llm.sources.a.adapter", "no-such-adapter"],
    ["core.llm.sources.a.adapter", "openai"],
    ["core.llm.sources.a.api_key", "k".repeat(4096)],
    ["core.llm.sources.a.model", "m".repeat(256)],
    ["core.llm.first_byte_timeout", "1h"],
    ["core.llm.first_byte_timeout", "0"],
    ["core.llm.retry_delay", "10m"],
    ["core.llm.provider", "nonexistent"],
    ["core.llm.provider", "a"],
    ["core.llm.sources.b.base_url", "https://[::1]:1/v1"],
  ];
  const rebuilt = (l: string) => l.includes("LLM sources in order") || l.includes("no LLM source configured");
  const seen: string[] = [];
  for (const [key, value] of edges) {
    d.logs.length = 0;
    d.config.set(key, value);
    // Each change is applied on a microtask; wait until the rebuilt sources are logged.
    await waitFor(() => d.logs.some(rebuilt), `sources rebuilt after ${key}`);
    seen.push(...d.logs);
  }
  assert.deepEqual(
    seen.filter((l) => / ERROR /.test(l)),
    [],
    "no rebuild failed",
  );
  assert.ok(seen.some((l) => l.includes('LLM source "a" skipped') && l.includes("no-such-adapter")));
  const byName = new Map(d.llm.sources().map((s) => [s.name, s]));
  assert.deepEqual([...byName.keys()].sort(), ["a", "b"]);
  assert.deepEqual(
    [byName.get("a")?.priority, byName.get("a")?.contextWindow, byName.get("a")?.preferred],
    [-1000000, 100000000, true],
  );
});
