/** The plugin registry: start order, failure isolation, revocation, API versions and time limits. */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import type { Plugin, PluginSDK } from "@homeagent/sdk";
import { PLUGIN_API_VERSION } from "@homeagent/sdk";
import { quietLog } from "../../test/fixtures/kernel-harness.js";
import { type TestPluginHost, testPluginHost } from "../../test/fixtures/plugin-host.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { HomeAgentError } from "../util/errors.js";
import { type PluginFactory, PluginRegistry } from "./registry.js";

let t: TestPluginHost;
let registry: PluginRegistry;
const states = () =>
  registry.list().map(({ name, state, lastError }) => ({ name, state, ...(lastError ? { error: lastError } : {}) }));
beforeEach(() => {
  t = testPluginHost();
  registry = new PluginRegistry(t.host, t.config, quietLog, { startTimeoutMs: 200, stopTimeoutMs: 200 });
});
afterEach(() => t.close());

const plugin = (name: string, start: Plugin["start"], stop: Plugin["stop"] = () => {}): Plugin => ({
  name,
  apiVersion: PLUGIN_API_VERSION,
  start,
  stop,
});

const factory = (p: Plugin, capabilities: PluginFactory["capabilities"] = ["events"]): PluginFactory => ({
  name: p.name,
  capabilities,
  create: () => p,
});

const registersEverything = (name: string, failAfter = false): Plugin =>
  plugin(name, (sdk) => {
    sdk.registerTool({ name: `${name}_tool`, description: "", parameters: { type: "object" } }, () => "x");
    sdk.registerStage("on_input", () => {});
    sdk.registerOutputChannel(`${name}_out`, ["text"], "out", () => {});
    sdk.subscribe("*", () => {});
    if (failAfter) throw new Error("cannot bind port");
  });

const stopped = (name: string) => (err: unknown) => {
  assert.ok(err instanceof HomeAgentError, `expected a HomeAgentError, got ${String(err)}`);
  assert.equal(err.code, "plugin_stopped");
  assert.match(err.message, new RegExp(`plugin "${name}" is stopped`));
  return true;
};

test("a plugin that fails to start is detached and reported, and the others still start", async () => {
  const events: string[] = [];
  t.harness.agent.bus.subscribe("system", (e) => void events.push(String(e.payload.kind)));
  await registry.startAll([factory(registersEverything("bad", true)), factory(registersEverything("good"))]);
  assert.deepEqual(states(), [
    { name: "bad", state: "failed", error: "cannot bind port" },
    { name: "good", state: "running" },
  ]);
  const names = t.harness.agent.tools.names();
  assert.ok(!names.some((n) => n.startsWith("bad_") || n.startsWith("output_send__bad")));
  assert.ok(names.includes("good_tool") && names.includes("output_send__good_out"));
  assert.equal(t.harness.agent.stages.count("on_input"), 1);
  assert.deepEqual(events, ["plugin_failed"]);
});

test("a plugin whose start() threw cannot act through its SDK later, even from a timer it left running", async () => {
  const before = t.config.get("core.agent.max_tool_turns");
  const errors: unknown[] = [];
  const attempt = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      errors.push(err);
    }
  };
  let stopCalled = false;
  const bad = plugin(
    "bad",
    (sdk) => {
      setTimeout(() => {
        attempt(() => sdk.registerTool({ name: "late_tool", description: "", parameters: {} }, () => "x"));
        attempt(() =>
          sdk.registerStage("on_input", (ctx) => {
            ctx.response = "hijacked";
          }),
        );
        attempt(() => sdk.config.set("core.agent.max_tool_turns", "1"));
      }, 0);
      throw new Error("boom");
    },
    () => {
      stopCalled = true;
    },
  );
  await registry.startAll([factory(bad, ["settings_cross"])]);
  await waitFor(() => errors.length === 3, "the timer's three calls");
  for (const err of errors) stopped("bad")(err);
  assert.ok(!t.harness.agent.tools.names().includes("late_tool"));
  assert.equal(t.harness.agent.stages.count("on_input"), 0);
  assert.equal(t.config.get("core.agent.max_tool_turns"), before);
  assert.equal(stopCalled, true, "stop() runs after a failed start so the plugin can release what it holds");
});

test("a stopped plugin's SDK refuses every call, and what it registered is gone", async () => {
  let held: PluginSDK | undefined;
  await registry.startAll([
    factory(
      plugin("p", (sdk) => {
        held = sdk;
        sdk.registerTool({ name: "p_tool", description: "", parameters: {} }, () => "x");
      }),
    ),
  ]);
  assert.ok(t.harness.agent.tools.names().includes("p_tool"));
  await registry.stopAll();
  assert.deepEqual(states(), [{ name: "p", state: "stopped" }]);
  assert.ok(!t.harness.agent.tools.names().includes("p_tool"));
  assert.throws(() => held?.subscribe("*", () => {}), stopped("p"));
  assert.throws(() => held?.settings.get("x"), stopped("p"));
});

test("stopping detaches everything a plugin registered; disabled plugins are not started", async () => {
  t.config.disablePlugin("off", "test");
  await registry.startAll([factory(registersEverything("good")), factory(registersEverything("off"))]);
  assert.equal(states()[1].state, "disabled");
  await registry.stopAll();
  assert.deepEqual(t.harness.agent.tools.names(), ["output_list_channels", "tool_search"], "only the kernel's own");
  assert.equal(t.harness.agent.stages.count(), 0);
});

test("a plugin written for another API version is refused with both versions named, and never started", async () => {
  let started = false;
  const old = {
    ...plugin("old", () => {
      started = true;
    }),
    apiVersion: PLUGIN_API_VERSION + 1,
  };
  await registry.startAll([factory(old)]);
  const [state] = states();
  assert.equal(state.state, "failed");
  assert.match(state.error ?? "", new RegExp(`version ${PLUGIN_API_VERSION + 1}.*version ${PLUGIN_API_VERSION}`));
  assert.equal(started, false);
});

test("a start() that never settles is marked failed after its limit, revoked, and does not block the next", async () => {
  let held: PluginSDK | undefined;
  const hung = plugin("hung", (sdk) => {
    held = sdk;
    return new Promise<void>(() => {});
  });
  await registry.startAll([factory(hung), factory(registersEverything("next"))]);
  const [hungState, nextState] = states();
  assert.equal(hungState.state, "failed");
  assert.match(hungState.error ?? "", /did not finish starting within 200 ms/);
  assert.equal(nextState.state, "running");
  assert.throws(() => held?.registerStage("on_input", () => {}), stopped("hung"));
});

test("a stop() that never settles does not hold up stopAll; the plugin is detached anyway", async () => {
  await registry.startAll([
    factory(registersEverything("a")),
    factory(
      plugin(
        "stuck",
        () => {},
        () => new Promise<void>(() => {}),
      ),
    ),
  ]);
  await registry.stopAll();
  assert.deepEqual(
    states().map((s) => s.state),
    ["stopped", "stopped"],
  );
  assert.equal(t.harness.agent.stages.count(), 0);
});

test("a factory declaring an unknown capability is refused with the known ones listed", async () => {
  const typo = factory(registersEverything("typo"), ["evnets" as never]);
  await registry.startAll([typo]);
  const [state] = states();
  assert.equal(state.state, "failed");
  assert.match(state.error ?? "", /unknown capabilities "evnets"; known: core, io/);
});

test("plugin settings are scoped and auth checks the daemon key", async () => {
  let held: PluginSDK | undefined;
  await registry.startAll([
    factory(
      plugin("p", (sdk) => {
        held = sdk;
      }),
      ["auth"],
    ),
  ]);
  const sdk = held as PluginSDK;
  assert.equal(sdk.auth.required(), false);
  sdk.settings.set("color", "blue");
  assert.equal(sdk.settings.get("color"), "blue");
  t.config.set("core.daemon.api_key", "k-123456789012");
  assert.equal(sdk.auth.required(), true);
  assert.equal(sdk.auth.verify("k-123456789012"), true);
  assert.equal(sdk.auth.verify("wrong"), false);
});

test("plugins named after a core tool owner or with an invalid name fail alone, saying why; the others start", async () => {
  await registry.startAll([
    factory(registersEverything("kernel")),
    factory(registersEverything("Bad Name")),
    factory(registersEverything("good")),
    factory(registersEverything("memory")),
    factory(registersEverything("llm")),
  ]);
  const list = states();
  assert.equal(list[0].state, "failed");
  assert.match(list[0].error ?? "", /"kernel" is reserved for the daemon's own tools/);
  assert.equal(list[1].state, "failed");
  assert.match(list[1].error ?? "", /invalid plugin name "Bad Name"/);
  assert.equal(list[2].state, "running");
  assert.match(list[3].error ?? "", /"memory" is reserved for the daemon's own tools/);
  assert.match(list[4].error ?? "", /"llm" is reserved for the daemon's own tools/);
  assert.ok(!t.harness.agent.tools.names().includes("kernel_tool"));
});

test("a second plugin of a name already taken fails alone and leaves the first one's registrations alone", async () => {
  await registry.startAll([factory(registersEverything("dup")), factory(registersEverything("dup", true))]);
  const list = states();
  assert.deepEqual(list[0], { name: "dup", state: "running" });
  assert.equal(list[1].state, "failed");
  assert.match(list[1].error ?? "", /"dup" is already taken by another plugin/);
  assert.ok(t.harness.agent.tools.names().includes("dup_tool"));
  assert.equal(t.harness.agent.stages.count("on_input"), 1);
});
