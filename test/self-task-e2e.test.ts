/**
 * `sdk.selfTask` in a real daemon with the fake LLM, as the healthcheck's self-test uses it: a built-in's
 * self-task is offered only its allowlist (a call outside it is refused, a call inside it runs) and stops at
 * its own bound of tool rounds; an external plugin cannot start one. (That it stays out of memory is the
 * kernel's, src/kernel/self-task.test.ts.)
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { definePlugin, type PluginSDK } from "@homeagent/sdk";
import type { PluginFactory } from "../src/plugins/registry.js";
import { startWebDaemon, type WebDaemon } from "./fixtures/webui.js";

let builtinSdk: PluginSDK | undefined;
let externalSdk: PluginSDK | undefined;
const capture = (name: string, builtin: boolean): PluginFactory => ({
  name,
  capabilities: ["io"],
  builtin,
  create: () =>
    definePlugin({
      name,
      start: (sdk) => {
        if (builtin) builtinSdk = sdk;
        else externalSdk = sdk;
      },
    }),
});

let w: WebDaemon;
before(async () => {
  w = await startWebDaemon({ plugins: [capture("tester", true), capture("outsider", false)] });
});
after(() => w?.stop());

interface Sent {
  tools?: Array<{ function: { name: string } }>;
  messages?: Array<{ role: string; content: unknown }>;
}

test("offered only its allowlist, a call outside it refused, bounded in rounds and time", async () => {
  assert.ok(builtinSdk);
  w.llm.enqueue(
    {
      toolCalls: [
        { name: "cmd_run", arguments: { command: "uname -a" } },
        { name: "healthcheck_plugins", arguments: {} },
      ],
    },
    { text: "1 worked, 1 not allowed" },
  );
  const reply = await builtinSdk.selfTask("try your tools", { tools: ["healthcheck_plugins", "healthcheck_report"] });
  assert.equal(reply.content, "1 worked, 1 not allowed");
  const [first, second] = w.llm.requests.slice(-2).map((r) => r.body as Sent);
  assert.deepEqual(first.tools?.map((t) => t.function.name).sort(), ["healthcheck_plugins", "healthcheck_report"]);
  const results = (second.messages ?? []).filter((m) => m.role === "tool").map((m) => String(m.content));
  assert.match(results[0], /tool "cmd_run" is not allowed in this task/);
  assert.match(results[1], /"checks"/);

  const loop = { toolCalls: [{ name: "healthcheck_plugins", arguments: {} }] };
  w.llm.enqueue(loop, loop, loop);
  const bounded = await builtinSdk.selfTask("loop", { tools: ["healthcheck_plugins"], maxToolTurns: 2 });
  assert.match(bounded.content, /exceeded 2 turns/);

  await assert.rejects(
    () => builtinSdk?.selfTask("x", { tools: ["a"], timeoutMs: 0 }) ?? Promise.resolve(),
    /timeoutMs is from 1 to 3600000/,
  );
});

test("an external plugin cannot start a self-task", async () => {
  assert.ok(externalSdk);
  await assert.rejects(
    async () => externalSdk?.selfTask("x", { tools: [] }),
    (err: Error & { code?: string }) => err.code === "capability_denied",
  );
});
