/**
 * Stopping the cli plugin (defect 5, the plugin's part): every client gets the answers already given,
 * an error for each line that will not be answered, and a last "homed is shutting down" frame, before the
 * connection ends; a client that does not read is cut off after the grace period.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { it } from "node:test";
import { cliSocketPath, SHUTTING_DOWN } from "@homeagent/cli-protocol";
import { createMockSDK, type MockResponder } from "@homeagent/sdk/test";
import { RawCliClient } from "../../../test/fixtures/cli-client.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { createCliPlugin } from "./plugin.js";

const KERNEL_REASON = "homed is shutting down; this message was not answered";

it("stop() delivers pending answers and a shutdown notice to every client, then closes", async () => {
  const held: Array<(reply: { error: string } | string) => void> = [];
  const respond: MockResponder = ({ text }) =>
    text === "big" ? "x".repeat(8 * 1024 * 1024) : new Promise((resolve) => held.push(resolve));
  const dir = tempDir("hacli-stop-");
  const sdk = createMockSDK({ pluginName: "cli", daemonDataDir: dir, respond });
  const plugin = createCliPlugin({ closeGraceMs: 300 });
  await plugin.start(sdk);
  const path = cliSocketPath(dir);

  const busy = await RawCliClient.open(path);
  busy.send("running\nqueued one\nqueued two\n");
  const idle = await RawCliClient.open(path);
  idle.send("/help\n");
  await idle.waitForFinals(1);
  const deaf = await RawCliClient.open(path, { reading: false });
  deaf.send("big\n");
  await waitFor(
    () => held.length === 1 && plugin.stats().connections.some((c) => c.readingPaused),
    "one message running, two queued and a client that does not read",
  );

  const stopped = plugin.stop();
  // What the daemon does first: the kernel stops and answers every message it was given.
  held[0]({ error: KERNEL_REASON });
  await stopped;

  assert.deepEqual(busy.finals(), [
    { type: "error", error: KERNEL_REASON },
    { type: "error", error: SHUTTING_DOWN },
    { type: "error", error: SHUTTING_DOWN },
    { type: "error", error: SHUTTING_DOWN },
  ]);
  assert.deepEqual(idle.finals().slice(1), [{ type: "error", error: SHUTTING_DOWN }]);
  await busy.waitForClose();
  await idle.waitForClose();
  // The server has cut it off already; the client finds out once it reads.
  deaf.startReading();
  await deaf.waitForClose();
  assert.deepEqual(
    sdk.inputs.map((i) => i.text).sort(),
    ["big", "running"],
    "queued lines never reach a stopping agent",
  );
  assert.deepEqual(plugin.stats(), { connections: [], watchers: 0 });
  assert.equal(existsSync(path), false);
});
