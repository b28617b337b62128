import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import type { KernelStatus, Plugin } from "@homeagent/sdk";
import { CapText, PLUGIN_API_VERSION } from "@homeagent/sdk";
import { type Harness, quietLog, startAgent } from "../../test/fixtures/kernel-harness.js";
import { ConfigRegistry } from "../config/registry.js";
import { EmbeddingRegistry } from "../embedding/spi.js";
import { PluginRegistry } from "./registry.js";

let h: Harness;
let dir: string;
let config: ConfigRegistry;
let registry: PluginRegistry;
beforeEach(() => {
  h = startAgent();
  dir = mkdtempSync(join(tmpdir(), "ha-plugins-"));
  config = ConfigRegistry.open(join(dir, "config.db"), { env: {} });
  const status = () => ({}) as KernelStatus;
  registry = new PluginRegistry(
    {
      agent: h.agent,
      config,
      dataDir: dir,
      logger: () => quietLog,
      status,
      llm: { sources: () => [], use() {} },
      embeddings: new EmbeddingRegistry(),
    },
    config,
    quietLog,
  );
});
afterEach(async () => {
  await h.close();
  config.close();
  rmSync(dir, { recursive: true, force: true });
});

const registersEverything = (name: string, failAfter = false): Plugin => ({
  name,
  apiVersion: PLUGIN_API_VERSION,
  start(sdk) {
    sdk.registerTool({ name: `${name}_tool`, description: "", parameters: { type: "object" } }, () => "x");
    sdk.registerStage("on_input", () => {});
    sdk.registerOutputChannel(`${name}_out`, CapText, "out", () => {});
    sdk.subscribe("*", () => {});
    if (failAfter) throw new Error("cannot bind port");
  },
  stop() {},
});

test("a plugin that fails to start is detached and reported, and the others still start", async () => {
  const events: string[] = [];
  h.agent.bus.subscribe("system", (e) => void events.push(String(e.payload.kind)));
  await registry.startAll([
    { name: "bad", create: () => registersEverything("bad", true) },
    { name: "good", create: () => registersEverything("good") },
  ]);
  assert.deepEqual(registry.states(), [
    { name: "bad", state: "failed", error: "cannot bind port" },
    { name: "good", state: "running" },
  ]);
  const names = h.agent.tools.names();
  assert.ok(!names.some((n) => n.startsWith("bad_") || n.startsWith("output_send__bad")));
  assert.ok(names.includes("good_tool") && names.includes("output_send__good_out"));
  assert.equal(h.agent.stages.count("on_input"), 1);
  assert.deepEqual(events, ["plugin_failed"]);
});

test("stopping detaches everything a plugin registered; disabled plugins are not started", async () => {
  config.disablePlugin("off", "test");
  await registry.startAll([
    { name: "good", create: () => registersEverything("good") },
    { name: "off", create: () => registersEverything("off") },
  ]);
  assert.equal(registry.states()[1].state, "disabled");
  await registry.stopAll();
  assert.deepEqual(h.agent.tools.names(), ["output_list_channels"]);
  assert.equal(h.agent.stages.count(), 0);
});

test("plugin settings are scoped and auth checks the daemon key", async () => {
  let sdkRef: Parameters<Plugin["start"]>[0] | undefined;
  await registry.startAll([
    {
      name: "p",
      create: () => ({
        name: "p",
        apiVersion: PLUGIN_API_VERSION,
        start: (sdk) => {
          sdkRef = sdk;
        },
        stop() {},
      }),
    },
  ]);
  const sdk = sdkRef!;
  assert.equal(sdk.auth.required(), false);
  sdk.settings.set("color", "blue");
  assert.equal(sdk.settings.get("color"), "blue");
  config.set("core.daemon.api_key", "k-123456789012");
  assert.equal(sdk.auth.required(), true);
  assert.equal(sdk.auth.verify("k-123456789012"), true);
  assert.equal(sdk.auth.verify("wrong"), false);
});
