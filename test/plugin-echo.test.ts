/**
 * One echo test, two plugins: echo-ts (TypeScript, definePlugin, run as plugin.js by the SDK's stdio
 * runtime) and echo-py (Python, written from docs/plugin-protocol.md alone, no shared code). Both must
 * behave the same through the real registry and proc host: tool, cleaner, stage patch, output channel,
 * cancellation, logging and a clean stop, a long text included — which is what shows the protocol document is
 * enough.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import type { Logger } from "@homeagent/sdk";
import { newStageContext } from "../src/kernel/stages.js";
import { PluginRegistry } from "../src/plugins/registry.js";
import { type TestPluginHost, testPluginHost } from "./fixtures/plugin-host.js";
import { installFixturePlugin } from "./fixtures/plugins.js";
import { waitFor } from "./fixtures/wait.js";

const PLUGINS = [
  { name: "echo-ts", kind: "js", here: "echo-ts was here", extraKey: "echoTs", output: "echo-out" },
  { name: "echo-py", kind: "bin", here: "echo-py was here", extraKey: "echoPy", output: "echo-py-out" },
] as const;

let t: TestPluginHost | undefined;
let registry: PluginRegistry | undefined;

afterEach(async () => {
  await registry?.stopAll();
  await t?.close();
});

/** A registry over one installed fixture; every line its plugins log through the SDK is kept. */
async function startOne(name: string): Promise<{ logs: string[] }> {
  t = testPluginHost();
  const logs: string[] = [];
  const log: Logger = {
    debug: (m) => void logs.push(m),
    info: (m) => void logs.push(m),
    warn: (m) => void logs.push(m),
    error: (m) => void logs.push(m),
  };
  t.host.logger = () => log;
  installFixturePlugin(t.host.dataDir, name);
  registry = new PluginRegistry(t.host, t.config, log, { pluginDir: join(t.host.dataDir, "plugins") });
  await registry.startAll([]);
  return { logs };
}

const toolCtx = (signal = new AbortController().signal) => ({
  requestId: "r1",
  source: "test",
  channel: "test",
  signal,
});

for (const p of PLUGINS) {
  test(`${p.name}: tool, cleaner, stage patch, output channel, cancellation, log and stop`, async () => {
    const { logs } = await startOne(p.name);
    const info = registry?.list().find((i) => i.name === p.name);
    assert.equal(info?.state, "running", JSON.stringify(info));
    assert.equal(info?.kind, p.kind);
    const agent = t?.harness.agent;
    assert.ok(agent);

    const echoed = await agent.tools.execute({ id: "c1", name: "echo", arguments: { text: "héllo 你好" } }, toolCtx());
    assert.deepEqual(echoed, { status: "ok", content: "héllo 你好" });
    // Long enough to travel as an attachment to echo-ts; echo-py never said it reads them, so it gets a line.
    const long = `"quoted" \\ é 你好 😀\n`.repeat(4000);
    const big = await agent.tools.execute({ id: "c1b", name: "echo", arguments: { text: long } }, toolCtx());
    assert.deepEqual(big, { status: "ok", content: long });
    const cleaner = agent.tools.get("echo")?.def.cleaner;
    assert.ok(cleaner, "the tool was registered with a cleaner");
    assert.equal(await cleaner("  padded  "), "padded");

    const ctx = newStageContext({ requestId: "r2", source: "test", channel: "test", rawMessage: "早上好" });
    await agent.stages.run("pre_action", ctx);
    assert.deepEqual(ctx.errors, []);
    assert.deepEqual(ctx.contextMsgs, [{ role: "system", content: p.here }]);
    assert.equal(ctx.extra[p.extraKey], "早上好");

    const sent = await agent.outputs.send(p.output, {
      payload: "Good morning!",
      meta: {},
      type: "text",
      requestId: "r3",
    });
    assert.deepEqual(sent, { status: "sent", echoed: "Good morning!" });

    const stop = new AbortController();
    const waiting = agent.tools.execute({ id: "c2", name: "wait", arguments: {} }, toolCtx(stop.signal));
    stop.abort(new Error("the user interrupted"));
    const waited = await waiting;
    assert.notEqual(waited.status, "ok");
    await waitFor(() => logs.some((l) => /wait aborted/.test(l)), `${p.name} to log that wait was aborted`);

    const pid = info?.pid;
    assert.ok(pid);
    await registry?.disable(p.name);
    assert.equal(registry?.list().find((i) => i.name === p.name)?.state, "disabled");
    assert.equal(agent.tools.get("echo"), undefined, "its tools are gone with it");
    assert.throws(() => process.kill(pid, 0), "its process has exited");
  });
}
