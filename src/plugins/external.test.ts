/**
 * Crash supervision of external plugins, with processes that crash on cue and a clock moved by hand:
 * detach at once, announce, restart at once then with a pause, give up after 3 crashes in 5 minutes until
 * reloaded, respect auto-restart off; and a critical plugin's stages refuse while it is down.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { FakeClock } from "../../test/fixtures/fake-clock.js";
import { FakeLauncher, writePluginDir } from "../../test/fixtures/fake-plugin-process.js";
import { quietLog } from "../../test/fixtures/kernel-harness.js";
import { type TestPluginHost, testPluginHost } from "../../test/fixtures/plugin-host.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { refusalOf } from "../kernel/stages.js";
import { PluginRegistry } from "./registry.js";

let t: TestPluginHost;
let root: string;
let launcher: FakeLauncher;
let clock: FakeClock;
let registry: PluginRegistry;
let events: Array<Record<string, unknown>>;

beforeEach(() => {
  t = testPluginHost();
  root = tempDir("ha-plugin-crash-");
  launcher = new FakeLauncher();
  clock = new FakeClock();
  events = [];
  t.harness.agent.bus.subscribe("system", (e) => void events.push(e.payload));
  registry = new PluginRegistry(t.host, t.config, quietLog, {
    pluginDir: root,
    launch: launcher.launch,
    clock,
    startTimeoutMs: 300,
    stopTimeoutMs: 300,
    handshakeTimeoutMs: 300,
  });
});
afterEach(async () => {
  await registry.stopAll();
  await t.close();
});

/** A plugin "p" that registers tool p_tool each time it starts. */
function toolPlugin(name = "p", manifest: Record<string, unknown> = {}): void {
  writePluginDir(root, name, manifest);
  launcher.behave(name, (opts) => {
    opts.binding.sdk.registerTool({ name: `${name}_tool`, description: "", parameters: { type: "object" } }, () => "x");
  });
}

const info = (name = "p") => registry.list().find((p) => p.name === name);
const hasTool = (name = "p_tool") => t.harness.agent.tools.names().includes(name);
const running = (name = "p") => waitFor(() => info(name)?.state === "running", `${name} running`);

test("a crash detaches the plugin at once, is announced with the stderr tail, and it restarts at once", async () => {
  toolPlugin();
  await registry.startAll([]);
  assert.ok(hasTool());
  launcher.last("p").crash(3, "Traceback: boom\n");
  assert.equal(hasTool(), false, "its tool is gone before anything else runs");
  assert.deepEqual(
    events.find((e) => e.kind === "plugin_crashed"),
    { kind: "plugin_crashed", plugin: "p", exitCode: 3, signal: null, stderrTail: "Traceback: boom\n" },
  );
  await running();
  assert.equal(launcher.count("p"), 2);
  assert.ok(hasTool(), "registered again by the new process");
  assert.equal(clock.pending, 0, "the first restart does not wait");
  const p = info();
  assert.equal(p?.crashes, 1);
  assert.equal(p?.restarts, 1);
  assert.equal(p?.pid, launcher.last("p").pid);
});

test("the second crash waits a second; the third within 5 minutes leaves it unhealthy until reloaded", async () => {
  toolPlugin();
  await registry.startAll([]);
  launcher.last("p").crash();
  await running();
  launcher.last("p").crash();
  assert.equal(info()?.state, "restarting");
  clock.advance(999);
  assert.equal(launcher.count("p"), 2, "not yet");
  clock.advance(1);
  await running();
  assert.equal(launcher.count("p"), 3);

  clock.advance(60_000);
  launcher.last("p").crash(2, "");
  const p = info();
  assert.equal(p?.state, "unhealthy");
  assert.equal(p?.health, "unhealthy");
  assert.equal(p?.crashes, 3);
  assert.match(p?.lastError ?? "", /crashed 3 times within 5 minutes; not restarted: fix it, then \/plugins reload p/);
  assert.ok(events.some((e) => e.kind === "plugin_unhealthy" && e.plugin === "p"));
  clock.advance(10 * 60_000);
  assert.equal(launcher.count("p"), 3, "never restarted by itself");
  assert.equal(hasTool(), false);

  const report = await registry.reload("p");
  assert.deepEqual(report.reloaded, ["p"]);
  assert.equal(info()?.state, "running");
  assert.equal(info()?.crashes, 0, "a reload by hand forgives");
  assert.equal(info()?.restarts, 0);
});

test("crashes further apart than 5 minutes are restarted every time", async () => {
  toolPlugin();
  await registry.startAll([]);
  for (let i = 0; i < 5; i++) {
    launcher.last("p").crash();
    await running();
    clock.advance(5 * 60_000 + 1);
  }
  assert.equal(launcher.count("p"), 6);
  assert.equal(info()?.crashes, 0);
});

test("a restart that fails counts as a crash and is tried again after the pause, then gives up", async () => {
  toolPlugin();
  await registry.startAll([]);
  launcher.behave("p", () => "fail");
  launcher.last("p").crash();
  await waitFor(() => clock.pending === 1, "the second restart to be scheduled");
  assert.equal(info()?.state, "restarting");
  assert.ok(
    events.some((e) => e.kind === "plugin_failed" && e.plugin === "p"),
    "the failed start is announced",
  );
  clock.advance(1000);
  await waitFor(() => info()?.state === "unhealthy", "unhealthy");
  assert.equal(info()?.restarts, 2);
});

test("a plugin that turned auto-restart off stays down after a crash", async () => {
  writePluginDir(root, "p");
  launcher.behave("p", (opts) => opts.binding.sdk.setAutoRestart(false));
  await registry.startAll([]);
  launcher.last("p").crash();
  assert.equal(info()?.state, "stopped");
  assert.match(
    info()?.lastError ?? "",
    /crashed: exited with code 1; stderr: Error: boom; not restarted: the plugin turned auto-restart off/,
  );
  clock.advance(60_000);
  assert.equal(launcher.count("p"), 1);
});

test("disabling a plugin that waits for its restart cancels the restart; an exit after stop is no crash", async () => {
  toolPlugin();
  await registry.startAll([]);
  launcher.last("p").crash();
  await running();
  launcher.last("p").crash();
  assert.equal(clock.pending, 1);
  await registry.disable("p");
  assert.equal(clock.pending, 0);
  clock.advance(5000);
  assert.equal(launcher.count("p"), 2);
  await registry.enable("p");
  await registry.disable("p");
  assert.equal(events.filter((e) => e.kind === "plugin_crashed").length, 2, "stopping on purpose is not a crash");
});

test("critical: a crashed guard's stage refuses tool calls with the reason; running again, it lets them through", async () => {
  let ran = 0;
  t.harness.agent.tools.register("demo", { name: "echo", description: "", parameters: { type: "object" } }, () => {
    ran++;
    return "echoed";
  });
  writePluginDir(root, "guard", { critical: true });
  launcher.behave("guard", (opts) => {
    opts.binding.sdk.setAutoRestart(false);
    opts.binding.sdk.registerStage("before_toolcall", () => {});
  });
  await registry.startAll([]);
  assert.equal(info("guard")?.critical, true);
  launcher.last("guard").crash(1, "");
  const { agent, llm } = t.harness;
  llm.enqueue({ toolCalls: [{ name: "echo" }] });
  const refused = await agent.injectInputSync("cli", "cli", "go");
  assert.ok(refused.content.includes(refusalOf("guard", "it crashed (exited with code 1)")), refused.content);
  assert.equal(ran, 0, "the guard is down: the call was refused");
  assert.equal((await agent.injectInputSync("cli", "cli", "just talk")).content, "ok", "other stages stay open");

  await registry.reload("guard");
  llm.enqueue({ toolCalls: [{ name: "echo" }] }, { text: "done" });
  assert.equal((await agent.injectInputSync("cli", "cli", "go")).content, "done");
  assert.equal(ran, 1);
});

test("critical: a guard that fails to start closes every stage; disabling it opens them", async () => {
  writePluginDir(root, "guard", { critical: true });
  launcher.behave("guard", () => "fail");
  await registry.startAll([]);
  const reply = await t.harness.agent.injectInputSync("cli", "cli", "hello");
  assert.match(
    reply.content,
    /refused: plugin "guard" \(critical\) is not running \(it failed to start: handshake failed/,
  );
  await registry.disable("guard");
  assert.equal(t.harness.agent.stages.count(), 0);
  assert.equal((await t.harness.agent.injectInputSync("cli", "cli", "hello")).content, "ok");
});
