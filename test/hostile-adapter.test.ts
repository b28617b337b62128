/**
 * Issue 7, defect 1, end to end: a hostile adapter script in the user's data dir must not freeze the
 * daemon. While one client's turn is stuck in Lua (a finalizer loop, an error object whose __tostring
 * loops, a backtracking string.find), a second client's /status is answered; the stuck turn then fails
 * with a clear adapter error, and the next message works again.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { cliSocketPath } from "@homeagent/cli-protocol";
import { type Daemon, startDaemon } from "../src/daemon/bootstrap.js";
import { RawCliClient } from "./fixtures/cli-client.js";
import { type FakeLLM, startFakeLLM } from "./fixtures/fake-llm.js";
import { tempDir } from "./fixtures/temp-dir.js";
import { waitFor } from "./fixtures/wait.js";

let fake: FakeLLM;
let daemon: Daemon;
const logs: string[] = [];

before(async () => {
  fake = await startFakeLLM();
  const dataDir = tempDir("ha-hostile-");
  mkdirSync(join(dataDir, "adapters"), { recursive: true });
  copyFileSync(new URL("./fixtures/adapters/hostile.lua", import.meta.url), join(dataDir, "adapters", "hostile.lua"));
  daemon = await startDaemon({
    dataDir,
    env: {
      HOMEAGENT_LLM_BASE_URL: fake.url,
      HOMEAGENT_LLM_ADAPTER: "hostile",
      HOMEAGENT_LLM_MODEL: "m",
      HOMEAGENT_WEBUI_ADDR: "127.0.0.1:0",
    },
    ollamaUrl: "",
    logWrite: (l) => logs.push(l),
    // A quarter of the default 2 s: an attack lasts far longer than the limit, and /status far less.
    adapterTimeoutMs: 500,
  });
});

after(async () => {
  await daemon.stop();
  await fake.close();
});

for (const attack of ["gc", "tostring", "find"]) {
  test(`an adapter stuck in "${attack}": /status is answered meanwhile, the turn fails clearly, then all is well`, async () => {
    const socket = cliSocketPath(daemon.paths.root);
    const stuck = await RawCliClient.open(socket);
    const other = await RawCliClient.open(socket);
    const order: string[] = [];
    const seenBefore = logs.length;
    stuck.send(`${attack}\n`);
    const stuckReply = stuck.waitForFinals(1, 15_000).then((f) => {
      order.push("stuck turn answered");
      return f[0];
    });
    await waitFor(() => logs.slice(seenBefore).some((l) => l.includes(`attack ${attack}`)), "the attack to start");
    other.send("/status\n");
    const status = (await other.waitForFinals(1))[0];
    order.push("status answered");
    assert.equal(status.type, "response");

    const reply = await stuckReply;
    assert.deepEqual(order, ["status answered", "stuck turn answered"]);
    assert.equal(reply.type, "error");
    assert.match(String(reply.error), /adapter hostile .*exceeded \d+ ms/);
    // A request the adapter could not build is not asked again without streaming: one attack, not two.
    assert.equal(logs.slice(seenBefore).filter((l) => l.includes(`attack ${attack}`)).length, 1);

    other.send("hello again\n");
    const next = (await other.waitForFinals(2))[1];
    assert.equal(next.type, "response");
    assert.equal(next.content, "ok");
    stuck.destroy();
    other.destroy();
  });
}
