/**
 * Zero lost writes with real processes: 8 plugins — 4 in-process, 4 stage-writer subprocesses (plugin.js
 * under the stdio runtime, through the real registry and proc host) — each with 2 handlers that append to
 * contextMsgs and set their own extra key after an await, 1,000 rounds of pre_action. Every round must keep
 * all 16 messages and all 16 keys; in-process and subprocess handlers share one semantics.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import { newStageContext } from "../src/kernel/stages.js";
import { PluginRegistry } from "../src/plugins/registry.js";
import { createPluginSDK } from "../src/plugins/sdk-impl.js";
import { quietLog } from "./fixtures/kernel-harness.js";
import { testPluginHost } from "./fixtures/plugin-host.js";
import { stageWriter } from "./fixtures/plugins/stage-writer/plugin.js";
import { installFixturePlugin } from "./fixtures/plugins.js";

const ROUNDS = 1000;
const HANDLERS = 2;
const IN_PROCESS = ["local-a", "local-b", "local-c", "local-d"];
const SUBPROCESS = ["remote-a", "remote-b", "remote-c", "remote-d"];

const t = testPluginHost();
let registry: PluginRegistry | undefined;
after(async () => {
  await registry?.stopAll();
  await t.close();
});

test("8 plugins (4 in-process, 4 subprocesses) × 2 concurrent handlers × 1,000 rounds: 0 lost writes", async () => {
  const agent = t.harness.agent;
  // Registered in alternation, so in-process and subprocess handlers interleave in the registration order.
  for (const [i, name] of SUBPROCESS.entries()) {
    installFixturePlugin(t.host.dataDir, "stage-writer", name);
    await stageWriter(IN_PROCESS[i] as string).start(
      createPluginSDK(IN_PROCESS[i] as string, t.host, { capabilities: [], builtin: false }).sdk,
    );
  }
  registry = new PluginRegistry(t.host, t.config, quietLog, { pluginDir: join(t.host.dataDir, "plugins") });
  await registry.startAll([]);
  for (const name of SUBPROCESS) assert.equal(registry.list().find((p) => p.name === name)?.state, "running", name);
  assert.equal(agent.stages.count("pre_action"), 8 * HANDLERS);

  const keys = [...IN_PROCESS, ...SUBPROCESS].flatMap((p) => Array.from({ length: HANDLERS }, (_, i) => `${p}#${i}`));
  let lost = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const requestId = `round-${round}`;
    const ctx = newStageContext({ requestId, source: "test", channel: "test", rawMessage: "hi" });
    await agent.stages.run("pre_action", ctx);
    assert.deepEqual(ctx.errors, [], `round ${round}`);
    const messages = new Set(ctx.contextMsgs.map((m) => m.content));
    for (const key of keys) {
      if (!messages.has(`${key} ${requestId}`)) lost++;
      if (ctx.extra[key] !== requestId) lost++;
    }
    assert.equal(ctx.contextMsgs.length, keys.length, `round ${round}: one message per handler, no duplicate`);
  }
  assert.equal(lost, 0, `${lost} of ${ROUNDS * keys.length * 2} writes lost`);
});
