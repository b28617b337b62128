/**
 * The echo-ts fixture plugin under the mock SDK (`@homeagent/sdk/test`): the same definePlugin module the
 * subprocess tests run as plugin.js, unit-tested without a daemon — the way a plugin author tests theirs.
 */
import assert from "node:assert/strict";
import test from "node:test";
import { createMockSDK } from "@homeagent/sdk/test";
import echo from "../../../../test/fixtures/plugins/echo-ts/plugin.js";

test("echo-ts registers its tool, stage and channel, and each works, under the mock SDK", async () => {
  const sdk = createMockSDK({ pluginName: "echo-ts" });
  await echo.start(sdk);
  assert.equal(echo.name, "echo-ts");
  assert.deepEqual([...sdk.tools.keys()], ["echo", "wait", "greeting"]);
  assert.equal(await sdk.callTool("echo", { text: "hi there" }), "hi there");
  assert.equal(sdk.tools.get("echo")?.def.cleaner?.("  spaced  "), "spaced");

  const ctx = { rawMessage: "hello", contextMsgs: [] as Array<{ role: string; content: string }>, extra: {} };
  await sdk.stages[0].handler(ctx as never);
  assert.equal(sdk.stages[0].stage, "pre_action");
  assert.deepEqual(ctx.contextMsgs, [{ role: "system", content: "echo-ts was here" }]);
  assert.deepEqual(ctx.extra, { echoTs: "hello" });

  const out = await sdk.channels.get("echo-out")?.handler({ payload: "p", meta: {}, type: "text", requestId: "r" });
  assert.deepEqual(out, { status: "sent", echoed: "p" });

  const controller = new AbortController();
  const waiting = sdk.callTool("wait", {}, { signal: controller.signal });
  controller.abort(new Error("interrupted"));
  await assert.rejects(waiting, /interrupted/);
  assert.deepEqual(sdk.logs, [
    { level: "info", msg: "echo-ts started: 你好" },
    { level: "info", msg: "wait aborted: interrupted" },
  ]);
  await echo.stop();
});
