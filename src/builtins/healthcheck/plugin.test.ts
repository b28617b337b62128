/**
 * The healthcheck plugin on the mock SDK: the full report and each tool's part of it, each with a failing
 * case — a plugin that failed to start, a tool definition a provider refuses, an LLM source that does not
 * answer a probe, a memory check that found a damaged index — plus one plugin's checks, the model's tool
 * reports, perf records from tool_call events, and the settings declared in both languages.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { LlmSourceStatus, MemoryCheck, PluginInfo, ToolInfo } from "@homeagent/sdk";
import { createMockSDK, type MockSDKOptions } from "@homeagent/sdk/test";
import type { HealthReport } from "./check.js";
import { createHealthcheckPlugin } from "./plugin.js";
import { HEALTHCHECK_SETTINGS } from "./settings.js";

const running = (name: string): PluginInfo => ({
  name,
  kind: "builtin",
  state: "running",
  health: "ok",
  capabilities: [],
  critical: false,
  crashes: 0,
  restarts: 0,
});
const source = (name: string, adapter = "openai"): LlmSourceStatus => ({
  name,
  model: "m",
  adapter,
  available: true,
  state: "ready",
  priority: 0,
  preferred: false,
  contextWindow: 0,
  maxConcurrent: 8,
  inFlight: 0,
});
const tool = (name: string, owner: string, parameters: Record<string, unknown>): ToolInfo => ({
  name,
  description: `${name} does things`,
  parameters,
  owner,
  noMemory: false,
});
const healthyMemory: MemoryCheck = {
  ok: true,
  durationMs: 4,
  at: 1,
  parts: [
    { name: "database", status: "ok", detail: "fine", problems: [], durationMs: 1 },
    { name: "keyword_index", status: "ok", detail: "fine", problems: [], durationMs: 1 },
    { name: "vector_index", status: "ok", detail: "fine", problems: [], durationMs: 1 },
  ],
};

async function start(opts: MockSDKOptions = {}) {
  const sdk = createMockSDK({
    pluginName: "healthcheck",
    plugins: [running("cli"), running("healthcheck")],
    tools: [tool("cmd_run", "cmd", { type: "object", properties: { command: { type: "string" } } })],
    llmSources: [source("main")],
    memory: { check: async () => healthyMemory, list: async () => ({ items: [], total: 0 }) },
    ...opts,
  });
  await createHealthcheckPlugin().start(sdk);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await sdk.callTool(name, args)) as HealthReport;
  const find = (r: HealthReport, name: string) => r.checks.find((c) => c.name === name);
  return { sdk, call, find };
}

test("a healthy daemon reports ok in every group", async () => {
  const { call } = await start();
  const r = await call("healthcheck");
  assert.equal(r.status, "ok", JSON.stringify(r.checks.filter((c) => c.status !== "ok")));
  const names = r.checks.map((c) => c.name);
  for (const name of ["plugin:cli", "tools", "llm:main", "memory:database", "kernel", "disk", "clock"]) {
    assert.ok(names.includes(name), `${name} in ${names}`);
  }
});

test("a plugin that failed to start fails healthcheck_plugins with its error", async () => {
  const { call, find } = await start({
    plugins: [running("cli"), { ...running("broken"), state: "failed", lastError: "start threw: boom" }],
  });
  const r = await call("healthcheck_plugins");
  assert.equal(r.status, "fail");
  assert.equal(r.checks[0].name, "plugin:broken");
  assert.match(find(r, "plugin:broken")?.detail ?? "", /start threw: boom/);
});

test("a tool whose schema a configured provider refuses fails; one only Gemini refuses warns without Gemini", async () => {
  const tools = [
    tool("bad_required", "probe", { type: "object", properties: { a: { type: "string" } }, required: ["b"] }),
    tool("uses_ref", "probe", { type: "object", properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: {} } }),
  ];
  const openaiOnly = await start({ tools });
  const r = await openaiOnly.call("healthcheck_tools");
  assert.equal(openaiOnly.find(r, "tool:bad_required")?.status, "fail");
  assert.match(openaiOnly.find(r, "tool:bad_required")?.detail ?? "", /parameters\.required: .*"b"/);
  assert.match(openaiOnly.find(r, "tool:bad_required")?.fix ?? "", /belongs to probe/);
  assert.equal(openaiOnly.find(r, "tool:uses_ref")?.status, "warn");
  const withGemini = await start({ tools, llmSources: [source("main"), source("g", "gemini")] });
  assert.equal(withGemini.find(await withGemini.call("healthcheck_tools"), "tool:uses_ref")?.status, "fail");
});

test("a source that does not answer its probe fails, naming it; without probe_llm none is sent", async () => {
  const probed: string[] = [];
  const { call, find } = await start({
    llmSources: [source("main"), source("dead")],
    llmTest: async (name) => {
      probed.push(name);
      return name === "dead"
        ? { source: name, ok: false, latencyMs: 3, model: "m", error: "connect ECONNREFUSED 127.0.0.1:9" }
        : { source: name, ok: true, latencyMs: 5, model: "m", reply: "OK" };
    },
  });
  assert.equal((await call("healthcheck_kernel")).status, "ok");
  assert.deepEqual(probed, []);
  const r = await call("healthcheck_kernel", { probe_llm: true });
  assert.deepEqual(probed.sort(), ["dead", "main"]);
  assert.equal(find(r, "llm:dead")?.status, "fail");
  assert.match(find(r, "llm:dead")?.detail ?? "", /dead \(m\) did not answer a test request: connect ECONNREFUSED/);
  assert.equal(find(r, "llm:main")?.status, "ok");
});

test("a damaged index found by memory.check fails healthcheck_memory; memory not running fails too", async () => {
  const damaged: MemoryCheck = {
    ...healthyMemory,
    ok: false,
    parts: healthyMemory.parts.map((p) =>
      p.name === "keyword_index" ? { ...p, status: "fail", detail: "1 of 3 wrong", problems: ["item doc:b: …"] } : p,
    ),
  };
  const asked: unknown[] = [];
  const { call, find } = await start({
    settings: { memory_timeout: "3s" },
    memory: {
      check: async (o) => {
        asked.push(o);
        return damaged;
      },
    },
  });
  const r = await call("healthcheck_memory");
  assert.equal(find(r, "memory:keyword_index")?.status, "fail");
  assert.deepEqual(asked, [{ timeoutMs: 3000 }]);
  const none = await start({ memory: {} });
  const r2 = await none.call("healthcheck_memory");
  assert.equal(r2.status, "fail");
  assert.match(r2.checks[0].detail, /memory is not available/);
});

test("healthcheck with a plugin checks that plugin and its tools only; an unknown one is refused", async () => {
  const { call, sdk } = await start({
    plugins: [running("cli"), { ...running("probe"), health: "degraded", healthReason: "on_input failed 3 of 5" }],
    tools: [tool("cmd_run", "cmd", { type: "object", properties: {} }), tool("probe_bad", "probe", { type: "array" })],
  });
  const r = await call("healthcheck", { plugin: "probe" });
  assert.deepEqual(
    r.checks.map((c) => [c.name, c.status]),
    [
      ["plugin:probe", "fail"],
      ["tool:probe_bad", "fail"],
    ],
  );
  await assert.rejects(sdk.callTool("healthcheck", { plugin: "nope" }), { code: "not_found" });
});

test("healthcheck_report keeps the model's findings; a failed one shows in the next report", async () => {
  const { call, find, sdk } = await start({ settings: { perf_history: "10" } });
  await assert.rejects(sdk.callTool("healthcheck_report", { tool_name: "x", status: "maybe", detail: "" }), {
    code: "invalid_argument",
  });
  for (let i = 0; i < 12; i++) {
    await sdk.callTool("healthcheck_report", { tool_name: `t${i}`, status: "ok", detail: "fine" });
  }
  const kept = (await sdk.callTool("healthcheck_report", {
    tool_name: "memory_search",
    status: "fail",
    detail: "it threw: index missing",
  })) as { kept: number };
  assert.equal(kept.kept, 10, "bounded by perf_history");
  const r = await call("healthcheck_tools");
  assert.equal(find(r, "report:memory_search")?.status, "fail");
  assert.match(find(r, "report:memory_search")?.detail ?? "", /it threw: index missing/);
  assert.equal(find(r, "report:t0"), undefined, "the oldest reports were dropped");
});

test("healthcheck_perf summarizes tool calls from the bus and check runs, slowest first, bounded", async () => {
  const { sdk, call } = await start({ settings: { perf_history: "10" } });
  for (const ms of [10, 30, 20]) {
    sdk.emit("tool_call", { phase: "end", name: "slow_tool", status: "ok", durationMs: ms });
  }
  sdk.emit("tool_call", { phase: "end", name: "fast_tool", status: "error", durationMs: 1 });
  sdk.emit("tool_call", { phase: "start", name: "fast_tool", arguments: {} });
  await call("healthcheck_plugins");
  const perf = (await sdk.callTool("healthcheck_perf")) as {
    records: number;
    entries: Array<{ name: string; calls: number; failures: number; p50Ms: number; maxMs: number }>;
  };
  assert.equal(perf.records, 5);
  const slow = perf.entries.find((e) => e.name === "tool:slow_tool");
  assert.deepEqual([slow?.calls, slow?.p50Ms, slow?.maxMs], [3, 20, 30]);
  assert.equal(perf.entries.find((e) => e.name === "tool:fast_tool")?.failures, 1);
  assert.ok(perf.entries.some((e) => e.name === "check:plugins"));
  assert.equal(perf.entries[0].name, "tool:slow_tool");
  for (let i = 0; i < 20; i++) sdk.emit("tool_call", { phase: "end", name: "x", status: "ok", durationMs: 1 });
  assert.equal(((await sdk.callTool("healthcheck_perf")) as { records: number }).records, 10);
});

test("every setting has an English and a Chinese name and description", () => {
  for (const def of HEALTHCHECK_SETTINGS) {
    assert.ok(def.displayName && def.description, def.key);
    assert.ok(def.translations?.zh?.displayName && def.translations.zh.description, def.key);
  }
});
