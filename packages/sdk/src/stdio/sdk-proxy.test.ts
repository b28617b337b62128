/**
 * The proxy PluginSDK, in-process over a pair of pipes: what each member sends, how answers and refusals
 * come back (same error codes as in-process), the settings cache, events, and what cannot cross the wire.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import test from "node:test";
import { waitFor } from "../../../../test/fixtures/wait.js";
import type { AgentEvent, PluginSDK } from "../index.js";
import { RpcPeer } from "../protocol/peer.js";
import { RpcError } from "../protocol/rpc-error.js";
import { SdkCallError } from "./errors.js";
import { runStdioPlugin } from "./runtime.js";

type CoreHandler = (method: string, params: unknown[], signal: AbortSignal) => unknown;

/** A started plugin whose SDK the test holds, and the daemon's side of the connection. */
async function session(onCore: CoreHandler = () => null, settings: Record<string, string> = {}) {
  const toPlugin = new PassThrough();
  const toDaemon = new PassThrough();
  const notes: Array<{ method: string; params: unknown[] }> = [];
  const calls: Array<{ method: string; params: unknown[] }> = [];
  const daemon = new RpcPeer({
    input: toDaemon,
    output: toPlugin,
    onRequest: (method, params, ctx) => {
      calls.push({ method, params: params as unknown[] });
      return onCore(method, params as unknown[], ctx.signal);
    },
    onNotification: (method, params) => void notes.push({ method, params: params as unknown[] }),
  });
  let sdk: PluginSDK | undefined;
  const exits: number[] = [];
  void runStdioPlugin(
    {
      name: "proxy-test",
      start: (given) => {
        sdk = given;
      },
    },
    { input: toPlugin, output: toDaemon, exit: (code) => void exits.push(code) },
  );
  await daemon.call("plugin.init", {
    name: "proxy-test",
    dataDir: "/data/plugin_data/proxy-test",
    daemonDataDir: "/data",
    capabilities: ["core"],
    settings,
  });
  await daemon.call("plugin.start", {});
  const warned = (re: RegExp) => notes.some((n) => n.method === "core.log.warn" && re.test(String(n.params[0])));
  return { sdk: sdk as PluginSDK, daemon, calls, notes, warned, exits, close: () => toPlugin.end() };
}

const refuse = (message: string, code = "capability_denied") => {
  throw new RpcError(-32000, message, { code });
};

test("identity comes from plugin.init and the log is sent as notifications", async () => {
  const s = await session();
  assert.equal(s.sdk.pluginName, "proxy-test");
  assert.equal(s.sdk.dataDir, "/data/plugin_data/proxy-test");
  assert.equal(s.sdk.daemonDataDir, "/data");
  s.sdk.log.info("hello");
  await waitFor(() => s.notes.some((n) => n.method === "core.log.info" && n.params[0] === "hello"), "the log line");
});

test("a call returns the daemon's answer, and a refusal keeps the in-process error code", async () => {
  const s = await session((method, params) => {
    if (method === "core.kernel.toolNames") return ["echo"];
    if (method === "core.memory.recall") {
      refuse(`plugin "proxy-test" may not call memory.recall: it needs the "memory" capability`);
    }
    return params;
  });
  assert.deepEqual(await s.sdk.kernel.toolNames(), ["echo"]);
  assert.deepEqual(await s.sdk.docMemory.query("tea", 3), ["tea", 3]);
  const err = await s.sdk.memory.recall("tea").catch((e: unknown) => e);
  assert.ok(err instanceof SdkCallError, String(err));
  assert.equal(err.code, "capability_denied");
  assert.equal(err.rpcCode, -32000);
  assert.match(err.message, /may not call memory.recall: it needs the "memory" capability/);
});

test("settings are read from the cache; a refused write is undone and logged", async () => {
  const s = await session(
    (method, params) =>
      method === "core.settings.set" && params[1] === "bad" ? refuse("not an int", "config_invalid") : null,
    { interval: "5" },
  );
  assert.equal(s.sdk.settings.get("interval"), "5");
  s.sdk.settings.define([{ key: "mode", default: "fast", description: "", type: "string" }]);
  assert.deepEqual(s.sdk.settings.list(), { interval: "5", mode: "fast" });

  s.sdk.settings.set("interval", "7");
  assert.equal(s.sdk.settings.get("interval"), "7", "the plugin reads its own write at once");
  s.sdk.settings.set("interval", "bad");
  assert.equal(s.sdk.settings.get("interval"), "bad");
  await waitFor(
    () => s.warned(/settings.set\("interval"\) was refused, the old value is kept: not an int/),
    "the warn",
  );
  assert.equal(s.sdk.settings.get("interval"), "7");
});

test("a void member that fails is logged instead of crashing the plugin", async () => {
  const s = await session((method) => (method === "core.injectInterrupt" ? refuse("needs io") : null));
  s.sdk.injectInterrupt("cli", "main", "stop");
  await waitFor(() => s.warned(/injectInterrupt failed: needs io/), "the warn");
});

test("an inject's abort signal becomes $/cancel, and onQueued is refused clearly", async () => {
  let seen: AbortSignal | undefined;
  const s = await session((method, params, signal) => {
    if (method !== "core.injectInputSync") return null;
    assert.deepEqual(params, ["cli", "main", "hi", { noMemory: true }]);
    seen = signal;
    return new Promise(() => {});
  });
  const controller = new AbortController();
  const reply = s.sdk.injectInputSync("cli", "main", "hi", { noMemory: true, signal: controller.signal });
  await waitFor(() => seen, "the inject to reach the daemon");
  controller.abort(new Error("client went away"));
  await assert.rejects(reply, /client went away/);
  await waitFor(() => seen?.aborted, "the daemon's signal to abort");
  await assert.rejects(
    s.sdk.injectInputSync("cli", "main", "hi", { onQueued: () => {} }),
    (err: Error & { code?: string }) =>
      err.code === "subprocess_unsupported" && /returns the request id/.test(err.message),
  );
});

test("events arrive for a subscription until it is unsubscribed", async () => {
  const s = await session();
  const got: AgentEvent[] = [];
  const off = s.sdk.subscribe("system", (event) => void got.push(event));
  await waitFor(() => s.calls.some((c) => c.method === "core.subscribe"), "the subscription");
  assert.deepEqual(s.calls.at(-1)?.params, ["system", "sub-1"]);
  const event: AgentEvent = { seq: 1, type: "system", source: "kernel", payload: { kind: "started" }, timestamp: 1 };
  s.daemon.notify("event.deliver", { subscription: "sub-1", event });
  await waitFor(() => got.length === 1, "the event");
  assert.deepEqual(got[0], event);
  off();
  await waitFor(() => s.calls.some((c) => c.method === "core.unsubscribe" && c.params[0] === "sub-1"), "unsubscribe");
  s.daemon.notify("event.deliver", { subscription: "sub-1", event: { ...event, seq: 2 } });
  s.daemon.notify("event.deliver", { subscription: "sub-1", event: { ...event, seq: 3 } });
  // The answer to a call sent after the notifications shows they were handled.
  await s.daemon.call("cleaner.invoke", { scope: "tool", name: "x", text: "" }).catch(() => {});
  assert.equal(got.length, 1);
});

test("a registration refused after start is logged and its handler dropped", async () => {
  const s = await session((method) =>
    method === "core.registerTool" ? refuse("tool name taken", "tool_exists") : null,
  );
  s.sdk.registerTool({ name: "late", description: "", parameters: {} }, () => "x");
  await waitFor(() => s.warned(/registerTool failed: tool name taken/), "the warn");
  const err = await s.daemon.call("tool.invoke", { name: "late", args: {} }).catch((e: unknown) => e);
  assert.match(String(err), /no tool named "late"/);
});

test("members that cannot cross the process boundary throw at once", async () => {
  const s = await session();
  assert.throws(() => s.sdk.publish("system", {}), /only built-in plugins may publish/);
  assert.throws(
    () => s.sdk.registerEmbeddingProvider("x", () => ({}) as never),
    (err: Error & { code?: string }) => err.code === "subprocess_unsupported",
  );
});

test("plugin.stop runs stop(), answers, then ends the session; EOF ends it too", async () => {
  const s = await session();
  assert.deepEqual(await s.daemon.call("plugin.stop", {}), {});
  await waitFor(() => s.exits.length === 1, "the exit");
  assert.deepEqual(s.exits, [0]);
  const t = await session();
  t.close();
  await waitFor(() => t.exits.length === 1, "the exit after EOF");
});
