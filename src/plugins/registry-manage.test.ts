/**
 * The registry with plugin directories: everything starts at once, a directory that cannot be loaded is
 * visible (log, event, status) rather than skipped, disable/enable act at once and persist across a
 * restart, reload works by entry SHA-256, and pluginMgr reaches all of it through the SDK.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import type { Logger, Plugin } from "@homeagent/sdk";
import { definePlugin } from "@homeagent/sdk";
import { FakeClock } from "../../test/fixtures/fake-clock.js";
import { FakeLauncher, writeBinEntry, writePluginDir } from "../../test/fixtures/fake-plugin-process.js";
import { type TestPluginHost, testPluginHost } from "../../test/fixtures/plugin-host.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { ConfigRegistry } from "../config/registry.js";
import { newStageContext } from "../kernel/stages.js";
import { HomeAgentError } from "../util/errors.js";
import { type PluginFactory, PluginRegistry, type RegistryOptions } from "./registry.js";
import { createPluginSDK } from "./sdk-impl.js";

let t: TestPluginHost;
let root: string;
let launcher: FakeLauncher;
let logs: string[];
let events: Array<Record<string, unknown>>;
const registries: PluginRegistry[] = [];

const recordingLog: Logger = {
  debug: () => {},
  info: (m) => void logs.push(`info ${m}`),
  warn: (m) => void logs.push(`warn ${m}`),
  error: (m) => void logs.push(`error ${m}`),
};

beforeEach(() => {
  t = testPluginHost();
  root = tempDir("ha-plugin-dirs-");
  launcher = new FakeLauncher();
  logs = [];
  events = [];
  t.harness.agent.bus.subscribe("system", (e) => void events.push(e.payload));
});
afterEach(async () => {
  for (const r of registries.splice(0)) await r.stopAll();
  await t.close();
});

function newRegistry(opts: RegistryOptions = {}, config = t.config): PluginRegistry {
  const host = { ...t.host, config };
  const registry = new PluginRegistry(host, config, recordingLog, {
    pluginDir: root,
    launch: launcher.launch,
    clock: new FakeClock(),
    startTimeoutMs: 300,
    stopTimeoutMs: 300,
    handshakeTimeoutMs: 300,
    ...opts,
  });
  host.plugins = registry;
  registries.push(registry);
  return registry;
}

/** A fake external plugin that registers one tool, `<name>_tool`, during its start. */
function registersTool(name: string): void {
  launcher.behave(name, (opts) => {
    opts.binding.sdk.registerTool({ name: `${name}_tool`, description: "", parameters: { type: "object" } }, () => "x");
  });
}

const builtin = (
  name: string,
  start: Plugin["start"] = () => {},
  capabilities: PluginFactory["capabilities"] = [],
) => ({
  name,
  capabilities,
  builtin: true,
  create: () => definePlugin({ name, start }),
});

const toolNames = () => t.harness.agent.tools.names();
const info = (registry: PluginRegistry, name: string) => registry.list().find((p) => p.name === name);

test("every plugin starts at once: one that never finishes fails at its limit and holds up nobody", async () => {
  const order: string[] = [];
  t.harness.agent.bus.subscribe("system", (e) => {
    if (e.payload.kind === "plugin_failed") order.push(`failed ${e.payload.plugin}`);
  });
  for (const name of ["ext-a", "ext-b", "ext-hung"]) writePluginDir(root, name);
  launcher.behave("ext-a", () => void order.push("start ext-a"));
  launcher.behave("ext-b", () => void order.push("start ext-b"));
  launcher.behave("ext-hung", () => {
    order.push("start ext-hung");
    return "hang";
  });
  const hung = builtin("hung", () => {
    order.push("start hung");
    return new Promise<void>(() => {});
  });
  const quick = builtin("quick", () => void order.push("start quick"));
  const registry = newRegistry();
  await registry.startAll([hung, quick]);
  const firstFailure = order.findIndex((o) => o.startsWith("failed"));
  assert.equal(firstFailure, 5, `every start began before the first limit passed: ${order.join(", ")}`);
  assert.deepEqual(
    registry.list().map((p) => [p.name, p.kind, p.state]),
    [
      ["hung", "builtin", "failed"],
      ["quick", "builtin", "running"],
      ["ext-a", "js", "running"],
      ["ext-b", "js", "running"],
      ["ext-hung", "js", "failed"],
    ],
  );
  assert.match(info(registry, "ext-hung")?.lastError ?? "", /did not answer the handshake within 300 ms/);
});

test("a directory that cannot be loaded (even a FIFO as plugin.json) is logged, announced and listed as failed with the reason", {
  timeout: 15_000,
}, async () => {
  writeFileSync(join(writePluginDir(root, "bad-json"), "plugin.json"), "{oops");
  rmSync(join(writePluginDir(root, "no-entry"), "plugin.js"));
  writePluginDir(root, "mismatch", { name: "other" });
  writeBinEntry(writePluginDir(root, "not-exec"), "#!/bin/sh\n", 0o644);
  writePluginDir(root, "cli");
  writePluginDir(root, "kernel");
  writePluginDir(root, "fine");
  // Opening a FIFO would wait for a writer for ever: start-up must not.
  rmSync(join(writePluginDir(root, "fifo"), "plugin.json"));
  execFileSync("mkfifo", [join(root, "fifo", "plugin.json")]);
  writeFileSync(join(root, "README.txt"), "not a plugin");
  writePluginDir(root, ".staging");
  const registry = newRegistry();
  await registry.startAll([builtin("cli")]);
  const expected: Record<string, RegExp> = {
    "bad-json": /plugin\.json is not valid JSON/,
    "no-entry": /no entry file: add plugin\.bin or plugin\.js/,
    mismatch: /names the plugin "other" but its directory is "mismatch"/,
    "not-exec": /plugin\.bin is not executable: run chmod \+x/,
    kernel: /"kernel" is reserved/,
    fifo: /plugin\.json is a FIFO, not a regular file/,
  };
  const list = registry.list();
  assert.deepEqual(
    list.map((p) => p.name),
    ["cli", "bad-json", "cli", "fifo", "fine", "kernel", "mismatch", "no-entry", "not-exec"],
    "plain files and hidden directories are not plugins",
  );
  assert.equal(list[0].state, "running", "the built-in keeps its name");
  assert.equal(list[2].state, "failed");
  assert.match(list[2].lastError ?? "", /"cli" is already taken by a built-in plugin/);
  for (const [name, reason] of Object.entries(expected)) {
    const p = info(registry, name);
    assert.equal(p?.state, "failed", name);
    assert.match(p?.lastError ?? "", reason);
    assert.ok(
      logs.some((l) => l.startsWith(`error plugin "${name}" failed to start:`)),
      `a log line for ${name}`,
    );
    assert.ok(
      events.some((e) => e.kind === "plugin_failed" && e.plugin === name && reason.test(String(e.error))),
      `an event for ${name}`,
    );
  }
  assert.equal(info(registry, "fine")?.state, "running");
});

test("disable and enable act at once and are remembered when the registry starts again", async () => {
  writePluginDir(root, "ext");
  registersTool("ext");
  const b = builtin("b", (sdk) => {
    sdk.registerTool({ name: "b_tool", description: "", parameters: { type: "object" } }, () => "y");
  });
  const first = newRegistry();
  await first.startAll([b]);
  assert.ok(toolNames().includes("ext_tool") && toolNames().includes("b_tool"));

  await first.disable("ext");
  await first.disable("b");
  assert.ok(!toolNames().includes("ext_tool") && !toolNames().includes("b_tool"), "gone at once");
  assert.equal(launcher.last("ext").exited, true);
  assert.deepEqual(
    first.list().map((p) => [p.name, p.state]),
    [
      ["b", "disabled"],
      ["ext", "disabled"],
    ],
  );
  await first.stopAll();

  // A new config center on the same file: what was disabled is read back from disk.
  const reopened = ConfigRegistry.open(join(t.host.dataDir, "config.db"), { env: {} });
  try {
    const second = newRegistry({}, reopened);
    await second.startAll([b]);
    assert.equal(launcher.count("ext"), 1, "not started again");
    assert.deepEqual(
      second.list().map((p) => p.state),
      ["disabled", "disabled"],
    );
    await second.enable("ext");
    await second.enable("b");
    assert.ok(toolNames().includes("ext_tool") && toolNames().includes("b_tool"), "back at once");
    await second.stopAll();
    const third = newRegistry({}, reopened);
    await third.startAll([b]);
    assert.deepEqual(
      third.list().map((p) => p.state),
      ["running", "running"],
    );
    await third.stopAll();
  } finally {
    reopened.close();
  }
});

test("enabling a plugin that fails says why; unknown names are refused", async () => {
  writePluginDir(root, "flaky");
  launcher.behave("flaky", () => "fail");
  const registry = newRegistry();
  await registry.startAll([]);
  await registry.disable("flaky");
  await assert.rejects(registry.enable("flaky"), /plugin "flaky" is enabled, but it failed to start: handshake failed/);
  assert.equal(t.config.isPluginDisabled("flaky"), false);
  await assert.rejects(registry.disable("ghost"), /no plugin named "ghost"; \/plugins lists them/);
  await assert.rejects(registry.enable("ghost"), /no plugin named "ghost"/);
});

test("a plugin whose stage handler failed 3 of its last 5 runs lists as degraded; reload restarts it though unchanged", async () => {
  writePluginDir(root, "flaky");
  launcher.behave("flaky", (opts) => {
    opts.binding.sdk.registerStage("pre_action", () => {
      throw new Error("backend down");
    });
  });
  const registry = newRegistry();
  await registry.startAll([builtin("cli")]);
  const run = () =>
    t.harness.agent.stages.run(
      "pre_action",
      newStageContext({ requestId: "r", source: "t", channel: "t", rawMessage: "x" }),
    );
  for (let i = 0; i < 3; i++) await run();
  const degraded = info(registry, "flaky");
  assert.equal(degraded?.state, "running");
  assert.equal(degraded?.health, "degraded");
  assert.match(
    degraded?.healthReason ?? "",
    /^its pre_action handler failed 3 of its last 3 runs \(last: backend down\)/,
  );
  assert.equal(info(registry, "cli")?.health, "ok");
  assert.equal(info(registry, "cli")?.healthReason, undefined);
  assert.ok(events.some((e) => e.kind === "plugin_degraded" && e.plugin === "flaky"));

  assert.deepEqual((await registry.reload("flaky")).reloaded, ["flaky"], "a degraded plugin is not left alone");
  assert.equal(launcher.count("flaky"), 2);
  assert.equal(info(registry, "flaky")?.health, "ok");
  assert.equal(info(registry, "flaky")?.healthReason, undefined);
});

test("reload: unchanged plugins keep running, changed ones restart, new ones start, removed ones stop", async () => {
  for (const name of ["same", "changed", "gone"]) {
    writePluginDir(root, name);
    registersTool(name);
  }
  writeFileSync(join(writePluginDir(root, "broken"), "plugin.json"), "{");
  const registry = newRegistry();
  await registry.startAll([builtin("cli")]);
  const samePid = info(registry, "same")?.pid;

  writeFileSync(join(root, "changed", "plugin.js"), "export default { changed: true };\n");
  rmSync(join(root, "gone"), { recursive: true });
  writePluginDir(root, "new");
  registersTool("new");
  writeFileSync(join(root, "broken", "plugin.json"), JSON.stringify({ name: "broken" }));

  const report = await registry.reload();
  assert.deepEqual(report, {
    reloaded: ["broken", "changed"],
    unchanged: ["same"],
    added: ["new"],
    removed: ["gone"],
    failed: [],
  });
  assert.equal(info(registry, "same")?.pid, samePid, "left running");
  assert.equal(launcher.count("same"), 1);
  assert.equal(launcher.count("changed"), 2);
  assert.equal(launcher.last("gone").exited, true);
  assert.equal(info(registry, "gone"), undefined);
  assert.ok(toolNames().includes("new_tool") && !toolNames().includes("gone_tool"));
  assert.equal(info(registry, "broken")?.state, "running");

  assert.deepEqual(await registry.reload("same"), {
    reloaded: [],
    unchanged: ["same"],
    added: [],
    removed: [],
    failed: [],
  });
  writeFileSync(join(root, "same", "plugin.json"), JSON.stringify({ name: "same", capabilities: ["events"] }));
  assert.deepEqual((await registry.reload("same")).reloaded, ["same"], "a changed manifest counts too");
  assert.deepEqual(info(registry, "same")?.capabilities, ["core", "events"]);
  await assert.rejects(registry.reload("cli"), /"cli" is built in, and built-ins are not hot-reloaded/);
  await assert.rejects(registry.reload("ghost"), /no plugin named "ghost"/);
  writeFileSync(join(root, "new", "plugin.json"), "[");
  const failed = await registry.reload("new");
  assert.equal(failed.failed[0]?.name, "new");
  assert.match(failed.failed[0]?.error ?? "", /not valid JSON/);
});

test("pluginMgr: needs plugin_mgr, manages through the registry, and a plugin cannot disable itself", async () => {
  writePluginDir(root, "ext");
  const registry = newRegistry();
  await registry.startAll([]);
  t.host.plugins = registry;
  const manager = createPluginSDK("manager", t.host, { capabilities: ["plugin_mgr"], builtin: false }).sdk;
  const other = createPluginSDK("other", t.host, { capabilities: [], builtin: false }).sdk;
  assert.deepEqual(
    manager.pluginMgr.list().map((p) => [p.name, p.state]),
    [["ext", "running"]],
  );
  await manager.pluginMgr.disable("ext");
  assert.equal(t.config.disabledPlugins()[0]?.disabledBy, "manager");
  await manager.pluginMgr.enable("ext");
  assert.equal(info(registry, "ext")?.state, "running");
  assert.deepEqual((await manager.pluginMgr.reload()).unchanged, ["ext"]);
  await assert.rejects(manager.pluginMgr.disable("manager"), /cannot disable itself/);
  assert.throws(
    () => other.pluginMgr.list(),
    (err: unknown) =>
      err instanceof HomeAgentError && err.code === "capability_denied" && /plugin_mgr/.test(err.message),
  );
  manager.setAutoRestart(false);
  assert.throws(() => manager.setAutoRestart("no" as never), /true or false/);
});

test("shutdown: a reload racing stopAll starts nothing, and stopAll resolves only after the reload", async () => {
  writePluginDir(root, "victim");
  // The shutdown comes in while the reload is reading the changed directory (its disabled check comes first).
  let onDisabledCheck: (() => void) | undefined;
  const config = new Proxy(t.config, {
    get(target, key) {
      if (key === "isPluginDisabled") {
        return (name: string) => {
          const hook = onDisabledCheck;
          onDisabledCheck = undefined;
          hook?.();
          return target.isPluginDisabled(name);
        };
      }
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const registry = newRegistry({}, config);
  await registry.startAll([]);
  writeFileSync(join(root, "victim", "plugin.js"), "export default { changed: true };\n");
  let stopped: Promise<void> | undefined;
  let reloaded = false;
  onDisabledCheck = () => {
    stopped = registry.stopAll();
  };
  const report = await registry.reload().finally(() => {
    reloaded = true;
  });
  assert.ok(stopped, "stopAll was called during the reload");
  await stopped;
  assert.equal(launcher.count("victim"), 1, "not started again");
  assert.equal(launcher.last("victim").exited, true);
  assert.equal(info(registry, "victim")?.state, "stopped");
  assert.deepEqual(report.failed, [{ name: "victim", error: "not started: homed is shutting down" }]);

  // And stopAll waits for a reload under way before it resolves.
  const second = newRegistry();
  await second.startAll([]);
  reloaded = false;
  const reloading = second.reload().finally(() => {
    reloaded = true;
  });
  await second.stopAll();
  assert.ok(reloaded, "the reload had finished when stopAll resolved");
  await reloading;
});

test("shutdown: once stopAll ran, enable and reload start nothing and say why", async () => {
  writePluginDir(root, "late");
  const registry = newRegistry();
  await registry.startAll([]);
  await registry.stopAll();
  writePluginDir(root, "newcomer");
  await assert.rejects(registry.enable("late"), /plugin "late" cannot be enabled now: homed is shutting down/);
  const report = await registry.reload();
  assert.deepEqual(report.added, []);
  assert.equal(launcher.count("late"), 1);
  assert.equal(launcher.count("newcomer"), 0);
  assert.equal(info(registry, "late")?.state, "stopped");
});
