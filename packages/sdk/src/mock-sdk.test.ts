/** The mock SDK of `@homeagent/sdk/test` records and drives a plugin the way plugin tests rely on. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { test } from "node:test";
import { type AgentEvent, definePlugin } from "./index.js";
import { createMockSDK } from "./test.js";

const plugin = definePlugin({
  name: "demo",
  start(sdk) {
    sdk.registerTool({ name: "shout", description: "upper-cases", parameters: {} }, (args) =>
      String(args.text).toUpperCase(),
    );
    sdk.registerStage("on_input", () => {});
    sdk.registerOutputChannel("demo", ["text"], "demo out", () => {});
    sdk.subscribe("tool_call", (e) => sdk.publish("system", { saw: e.payload.tool }));
  },
});

test("records registrations, calls tools, delivers bus events and records what the plugin publishes", async () => {
  const sdk = createMockSDK({ pluginName: "demo" });
  await plugin.start(sdk);
  assert.deepEqual([...sdk.tools.keys()], ["shout"]);
  assert.deepEqual(
    sdk.stages.map((s) => [s.stage, s.scope]),
    [["on_input", "global"]],
  );
  assert.deepEqual([...sdk.channels.keys()], ["demo"]);
  assert.equal(await sdk.callTool("shout", { text: "hi" }), "HI");
  await assert.rejects(sdk.callTool("nope"), /no tool named "nope"/);

  const seen: AgentEvent[] = [];
  sdk.subscribe("*", (e) => void seen.push(e));
  sdk.emit("content_delta", { content: "x" });
  sdk.emit("tool_call", { tool: "shell" });
  assert.deepEqual(sdk.published, [{ type: "system", payload: { saw: "shell" } }]);
  assert.deepEqual(
    seen.map((e) => [e.type, e.source]),
    [
      ["content_delta", "kernel"],
      // The plugin subscribed first, so its republished event arrives within the delivery of tool_call.
      ["system", "demo"],
      ["tool_call", "kernel"],
    ],
  );
  assert.equal(sdk.kernel.status().tools, 1);
  assert.deepEqual(sdk.kernel.toolNames(), ["shout"]);
});

test("answers injectInputSync through the responder, and injectInput's reply reaches the output channel", async () => {
  const sdk = createMockSDK({ respond: ({ text }) => (text === "bad" ? { error: "no" } : `re: ${text}`) });
  const delivered = new Promise<string>((resolve) =>
    sdk.registerOutputChannel("out", ["text"], "", (msg) => resolve(msg.payload)),
  );
  const queued: string[] = [];
  const reply = await sdk.injectInputSync("cli", "cli", "hello", { onQueued: (id) => void queued.push(id) });
  assert.deepEqual(reply, { requestId: "req-1", content: "re: hello", shortCircuited: false });
  assert.deepEqual(queued, ["req-1"]);
  assert.equal((await sdk.injectInputSync("cli", "cli", "bad")).error, "no");

  const id = sdk.injectInput("timer", "out", "tick");
  assert.equal(sdk.inputs.find((i) => i.requestId === id)?.sync, false);
  assert.equal(await delivered, "re: tick");
  sdk.injectInterrupt("cli", "cli", "stop");
  assert.deepEqual(sdk.interrupts, [{ source: "cli", channel: "cli", text: "stop" }]);
});

test("keeps settings and configuration in memory, and checks auth and LLM sources", () => {
  const sdk = createMockSDK({
    settings: { color: "blue" },
    config: [{ key: "core.agent.max_tool_turns", value: "10" }],
    apiKey: "k",
  });
  sdk.settings.define([{ key: "size", default: "3", description: "", type: "int" }]);
  assert.equal(sdk.settings.get("size"), "3");
  sdk.settings.set("size", "4");
  assert.deepEqual(sdk.settings.list(), { size: "4", color: "blue" });
  sdk.config.set("core.agent.max_tool_turns", "12");
  assert.equal(sdk.config.list("core.agent")[0].value, "12");
  assert.throws(() => sdk.config.set("core.nope", "1"), /unknown config key core\.nope/);
  assert.equal(sdk.auth.required(), true);
  assert.equal(sdk.auth.verify("k"), true);
  assert.equal(sdk.auth.verify("x"), false);
  assert.throws(() => sdk.llm.use("ghost"), /no LLM source named "ghost"/);
});

test("creates the plugin's data dir on first use", () => {
  const sdk = createMockSDK({ pluginName: "files" });
  assert.ok(existsSync(sdk.dataDir));
  assert.ok(sdk.dataDir.startsWith(sdk.daemonDataDir));
});

test("records input channels and answers memory calls from what the test gives, rejecting the rest", async () => {
  const sdk = createMockSDK({
    memory: { search: async (query) => [{ id: "turn:1", kind: "turn", text: `about ${query}`, ts: 1, meta: {} }] },
    social: { person: async (name) => ({ name, traits: { likes: "tea" }, relations: [] }) },
  });
  const cleaner = (s: string) => s.trim();
  sdk.registerInputChannel("terminal", { noMemory: true, cleaner });
  assert.deepEqual([...sdk.inputChannels], [["terminal", { noMemory: true, cleaner }]]);
  assert.throws(() => sdk.registerInputChannel("terminal"), /already registered/);
  assert.deepEqual(await sdk.memory.search("tea"), [
    { id: "turn:1", kind: "turn", text: "about tea", ts: 1, meta: {} },
  ]);
  assert.equal((await sdk.social.person("Ann"))?.traits.likes, "tea");
  await assert.rejects(
    sdk.docMemory.query("x"),
    (err: Error & { code?: string }) => err.code === "memory_unavailable" && /docMemory\.query/.test(err.message),
  );
  assert.equal(sdk.kernel.context(), null);
});

test("pluginMgr manages the plugins the test gives, and setAutoRestart is recorded", async () => {
  const info = { health: "ok" as const, capabilities: ["core"], critical: false, crashes: 0, restarts: 0 };
  const sdk = createMockSDK({
    plugins: [
      { ...info, name: "cli", kind: "builtin", state: "running" },
      { ...info, name: "echo", kind: "js", state: "running" },
    ],
  });
  await sdk.pluginMgr.disable("echo");
  assert.deepEqual(
    sdk.pluginMgr.list().map((p) => [p.name, p.state]),
    [
      ["cli", "running"],
      ["echo", "disabled"],
    ],
  );
  assert.equal(sdk.kernel.status().plugins[1].state, "disabled");
  assert.deepEqual((await sdk.pluginMgr.reload()).reloaded, ["echo"]);
  await assert.rejects(sdk.pluginMgr.enable("ghost"), /no plugin named "ghost"/);
  assert.equal(sdk.autoRestart, true);
  sdk.setAutoRestart(false);
  assert.equal(sdk.autoRestart, false);
});
