/**
 * The registry with real child processes (fixture plugins from test/fixtures/plugins/): concurrent start
 * past hung children, a real crash and a SIGKILL detached and restarted, reload by the SHA-256 of a real
 * plugin.js, a critical guard whose stage fails closed once its process is killed, and what a daemon
 * killed by SIGKILL left running cleaned up by the next one.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import type { Logger } from "@homeagent/sdk";
import { quietLog } from "../../test/fixtures/kernel-harness.js";
import { nodeArgs } from "../../test/fixtures/node-entry.js";
import { type TestPluginHost, testPluginHost } from "../../test/fixtures/plugin-host.js";
import { installFixturePlugin } from "../../test/fixtures/plugins.js";
import { processAlive } from "../../test/fixtures/proc-plugins.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { refusalOf } from "../kernel/stages.js";
import { PluginProcess } from "./proc/plugin-process.js";
import { PluginRegistry, type RegistryOptions } from "./registry.js";

let t: TestPluginHost;
let registry: PluginRegistry;
let events: Array<{ at: number; payload: Record<string, unknown> }>;

beforeEach(() => {
  t = testPluginHost();
  events = [];
  t.harness.agent.bus.subscribe("system", (e) => void events.push({ at: performance.now(), payload: e.payload }));
});
afterEach(async () => {
  await registry?.stopAll();
  await t.close();
});

function start(opts: RegistryOptions = {}): Promise<void> {
  registry = new PluginRegistry(t.host, t.config, quietLog, {
    pluginDir: join(t.host.dataDir, "plugins"),
    stopTimeoutMs: 2000,
    ...opts,
  });
  return registry.startAll([]);
}

const info = (name: string) => registry.list().find((p) => p.name === name);
const event = (kind: string, plugin: string) =>
  events.find((e) => e.payload.kind === kind && e.payload.plugin === plugin);

async function callTool(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const outcome = await t.harness.agent.tools.execute(
    { id: `c-${name}`, name, arguments: args },
    { requestId: "r1", source: "test", channel: "test", signal: new AbortController().signal },
  );
  return outcome.content;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("children start at once: two that never answer fail together at the limit while echo-ts runs", async () => {
  const limitMs = 1000;
  installFixturePlugin(t.host.dataDir, "hang", "hang-a");
  installFixturePlugin(t.host.dataDir, "hang", "hang-b");
  installFixturePlugin(t.host.dataDir, "echo-ts");
  // The hung children have the short limit; echo-ts the default one, so that node starting slowly on a busy
  // machine cannot make it miss its handshake.
  await start({
    handshakeTimeoutMs: limitMs,
    launch: (o) => PluginProcess.launch(o.name === "echo-ts" ? { ...o, handshakeTimeoutMs: 10_000 } : o),
  });
  assert.equal(info("echo-ts")?.state, "running");
  assert.equal(info("echo-ts")?.kind, "js");
  assert.equal(await callTool("echo", { text: "hi" }), "hi");
  const [a, b] = ["hang-a", "hang-b"].map((name) => event("plugin_failed", name));
  assert.ok(a && b, "both announced");
  assert.match(String(a.payload.error), /handshake/);
  assert.ok(
    Math.abs(a.at - b.at) < limitMs / 2,
    `failed ${Math.round(Math.abs(a.at - b.at))} ms apart: not one after the other`,
  );
  assert.equal(info("hang-a")?.state, "failed");
});

test("a real crash and a SIGKILL: announced with the stderr tail, restarted, and its tools callable again", async () => {
  installFixturePlugin(t.host.dataDir, "crash");
  await start();
  const firstPid = info("crash")?.pid ?? 0;
  assert.equal(await callTool("echo", { text: "one" }), "echo: one");

  await callTool("crash");
  await waitFor(() => event("plugin_crashed", "crash"), "plugin_crashed");
  const crashed = event("plugin_crashed", "crash")?.payload;
  assert.equal(crashed?.exitCode, 7);
  assert.match(String(crashed?.stderrTail), /giving up on purpose/);
  await waitFor(() => info("crash")?.state === "running" && info("crash")?.pid !== firstPid, "the restart");
  assert.equal(await callTool("echo", { text: "two" }), "echo: two");

  const secondPid = info("crash")?.pid ?? 0;
  process.kill(secondPid, "SIGKILL");
  await waitFor(() => info("crash")?.state === "running" && info("crash")?.pid !== secondPid, "the second restart");
  assert.equal(await callTool("echo", { text: "three" }), "echo: three");
  const p = info("crash");
  assert.equal(p?.crashes, 2);
  assert.equal(p?.restarts, 2);
});

test("reload keeps an unchanged plugin.js running and restarts a changed one", async () => {
  const dir = installFixturePlugin(t.host.dataDir, "echo-ts");
  await start();
  const pid = info("echo-ts")?.pid ?? 0;
  assert.deepEqual((await registry.reload()).unchanged, ["echo-ts"]);
  assert.equal(info("echo-ts")?.pid, pid);
  appendFileSync(join(dir, "plugin.js"), "\n// edited\n");
  assert.deepEqual((await registry.reload("echo-ts")).reloaded, ["echo-ts"]);
  assert.notEqual(info("echo-ts")?.pid, pid);
  await waitFor(() => !alive(pid), "the old process to be gone");
  assert.equal(await callTool("echo", { text: "again" }), "again");
});

test("a plugin.js reads its own setting as it is now: a change from outside reaches its cache", async () => {
  installFixturePlugin(t.host.dataDir, "echo-ts");
  await start();
  assert.equal(await callTool("greeting"), "hello");
  t.config.set("plugin.echo-ts.greeting", "你好");
  await waitFor(async () => (await callTool("greeting")) === "你好", "the new value to reach the plugin");
});

test("critical guard: killed, its stage refuses tool calls saying why; reloaded, it guards again", async () => {
  let ran = 0;
  for (const name of ["echo", "forbidden"]) {
    t.harness.agent.tools.register("demo", { name, description: "", parameters: { type: "object" } }, () => {
      ran++;
      return "ran";
    });
  }
  installFixturePlugin(t.host.dataDir, "critical-guard");
  await start();
  const { agent, llm } = t.harness;
  const turn = async (tool: string) => {
    llm.enqueue({ toolCalls: [{ name: tool }] }, { text: "done" });
    return (await agent.injectInputSync("cli", "cli", `call ${tool}`)).content;
  };
  assert.equal(await turn("echo"), "done");
  assert.equal(ran, 1);
  llm.enqueue({ toolCalls: [{ name: "forbidden" }] });
  assert.match((await agent.injectInputSync("cli", "cli", "call forbidden")).content, /critical-guard: not that one/);
  assert.equal(ran, 1, "the running guard refuses what it should");

  process.kill(info("critical-guard")?.pid ?? 0, "SIGKILL");
  await waitFor(() => info("critical-guard")?.state === "stopped", "the guard to be down");
  llm.enqueue({ toolCalls: [{ name: "echo" }] });
  const refused = (await agent.injectInputSync("cli", "cli", "call echo")).content;
  assert.ok(refused.includes(refusalOf("critical-guard", "it crashed (was killed by SIGKILL)")), refused);
  assert.equal(ran, 1, "the call was refused while the guard was down");

  await registry.reload("critical-guard");
  assert.equal(await turn("echo"), "done");
  assert.equal(ran, 2);
});

test("critical guard, running: a call it cannot judge (its snapshot is over 1 MiB) is refused, not let through", async () => {
  let ran = 0;
  t.harness.agent.tools.register("demo", { name: "echo", description: "", parameters: { type: "object" } }, () => {
    ran++;
    return "ran";
  });
  installFixturePlugin(t.host.dataDir, "critical-guard");
  await start();
  assert.equal(info("critical-guard")?.state, "running");
  const { agent, llm } = t.harness;
  llm.enqueue({ toolCalls: [{ name: "echo" }] }, { text: "done" });
  // The input rides in every snapshot: 1.2 MB of it cannot be sent to the guard.
  const reply = (await agent.injectInputSync("cli", "cli", `call echo ${"x".repeat(1_200_000)}`)).content;
  assert.match(reply, /critical-guard.*\(critical\) failed in before_toolcall/s);
  assert.equal(ran, 0, "the registry marked the guard critical, so its failure refuses the call");
});

test("a registry start kills what the plugin of a SIGKILLed daemon on the same data directory forked", {
  skip: process.platform !== "linux",
}, async () => {
  const daemon = spawn(process.execPath, nodeArgs("test/fixtures/proc-orphan-host.ts", "grandchild", t.host.dataDir), {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let grandchild = 0;
  try {
    const [line] = (await once(daemon.stdout, "data")) as [Buffer];
    const [child, forked] = line.toString().trim().split(" ").map(Number);
    grandchild = forked;
    assert.ok(child > 0 && grandchild > 0, `the host printed both pids, got ${JSON.stringify(line.toString())}`);
    daemon.kill("SIGKILL");
    await once(daemon, "exit");
    // The parent-death signal reaches the plugin, not what it forked.
    assert.equal(processAlive(grandchild), true, "the grandchild outlived its daemon");

    const warnings: string[] = [];
    const log: Logger = { ...quietLog, warn: (m) => void warnings.push(m) };
    registry = new PluginRegistry(t.host, t.config, log, { pluginDir: join(t.host.dataDir, "plugins") });
    await registry.startAll([]);
    await waitFor(() => !processAlive(grandchild), `leftover ${grandchild} to be killed`);
    assert.match(
      warnings.join("\n"),
      new RegExp(`killed \\d plugin process\\(es\\) an earlier homed on .* left running \\(pids .*${grandchild}`),
    );
  } finally {
    daemon.kill("SIGKILL");
    if (grandchild > 0 && processAlive(grandchild)) process.kill(grandchild, "SIGKILL");
  }
});
