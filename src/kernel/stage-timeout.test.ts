/**
 * Defect 8: a stage handler that never settles used to block every later input and `stop()`. Each
 * handler now has a deadline (`core.plugin.stage_timeout`, read per run) and an AbortSignal.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import type { StageContext } from "@homeagent/sdk";
import { type Harness, quietLog, startAgent } from "../../test/fixtures/kernel-harness.js";
import { waitFor } from "../../test/fixtures/wait.js";

let h: Harness;
beforeEach(() => {
  h = startAgent();
});
afterEach(() => h.close());

const never = () => new Promise<void>(() => {});

test("a hung on_input handler times out, is recorded in ctx.errors, and the turn goes on", {
  timeout: 10_000,
}, async () => {
  h.settings.stageTimeout = 50;
  let hungSignal: AbortSignal | undefined;
  h.agent.stages.register("hung", "on_input", (ctx) => {
    hungSignal = ctx.signal;
    return never();
  });
  let errors: StageContext["errors"] = [];
  h.agent.stages.register("obs", "after_output", (ctx) => {
    errors = [...ctx.errors];
  });
  h.llm.enqueue({ text: "answered anyway" }, { text: "and again" });
  const reply = await h.agent.injectInputSync("cli", "cli", "hello");
  assert.equal(reply.content, "answered anyway");
  assert.deepEqual(
    errors.map((e) => [e.plugin, e.stage]),
    [["hung", "on_input"]],
  );
  assert.match(errors[0].message, /timed out after 50 ms/);
  assert.equal(hungSignal?.aborted, true, "the handler's signal was aborted at its deadline");
  assert.equal((await h.agent.injectInputSync("cli", "cli", "still there?")).content, "and again");
});

test("the deadline is read on every run, so a settings change applies to the next stage", {
  timeout: 10_000,
}, async () => {
  const messages: string[] = [];
  h.agent.stages.register("hung", "pre_action", never);
  h.agent.stages.register("obs", "after_output", (ctx) => void messages.push(...ctx.errors.map((e) => e.message)));
  h.settings.stageTimeout = 30;
  await h.agent.injectInputSync("cli", "cli", "one");
  h.settings.stageTimeout = 60;
  await h.agent.injectInputSync("cli", "cli", "two");
  assert.equal(messages.length, 2);
  assert.match(messages[0], /timed out after 30 ms/);
  assert.match(messages[1], /timed out after 60 ms/);
});

test("stop() does not wait for a hung handler, and the waiting caller is told why", { timeout: 10_000 }, async () => {
  h.settings.stageTimeout = 600_000;
  let started = false;
  h.agent.stages.register("hung", "on_input", () => {
    started = true;
    return never();
  });
  const pending = h.agent.injectInputSync("cli", "cli", "hello");
  await waitFor(() => started, "the hung handler to start");
  await h.agent.stop();
  const reply = await pending;
  assert.match(reply.error ?? "", /shutting down/);
  assert.equal(h.llm.requests.length, 0);
});

test("a handler that settles in time records nothing and sees an unaborted signal", async () => {
  let aborted: boolean | undefined;
  h.agent.stages.register("quick", "pre_action", async (ctx) => {
    await Promise.resolve();
    aborted = ctx.signal.aborted;
  });
  let errors: StageContext["errors"] = [{ plugin: "x", stage: "on_input", message: "placeholder" }];
  h.agent.stages.register("obs", "after_output", (ctx) => {
    errors = [...ctx.errors];
  });
  await h.agent.injectInputSync("cli", "cli", "hi");
  assert.equal(aborted, false);
  assert.deepEqual(errors, []);
});

test("a handler that writes after its timeout changes nothing in the turn (and is reported once)", {
  timeout: 10_000,
}, async () => {
  const warnings: string[] = [];
  await h.close();
  h = startAgent({ log: { ...quietLog, warn: (m) => void warnings.push(m) } });
  h.settings.stageTimeout = 50;
  let go: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    go = resolve;
  });
  let lateDone: () => void = () => {};
  const wrote = new Promise<void>((resolve) => {
    lateDone = resolve;
  });
  let lateError: unknown;
  h.agent.stages.register("late", "on_input", async (ctx) => {
    const msgs = ctx.contextMsgs;
    await released;
    try {
      ctx.response = "HIJACKED by a handler that timed out";
      ctx.rawMessage = "rewritten late";
      msgs.push({ role: "system", content: "pushed late through a saved reference" });
      ctx.contextMsgs.push({ role: "system", content: "pushed late" });
      ctx.extra.late = true;
      ctx.errors.length = 0;
    } catch (err) {
      lateError = err;
    }
    lateDone();
  });
  // The late handler writes while pre_action runs, so every write lands before the turn reads those fields.
  h.agent.stages.register("trigger", "pre_action", async () => {
    go();
    await wrote;
  });
  let seen: { extra: Record<string, unknown>; errors: number } | undefined;
  h.agent.stages.register("obs", "after_output", (ctx) => {
    seen = { extra: { ...ctx.extra }, errors: ctx.errors.length };
  });
  h.llm.enqueue({ text: "the model's real answer" });
  const reply = await h.agent.injectInputSync("cli", "cli", "hello");
  assert.equal(lateError, undefined, "a dropped write does not throw in the handler");
  assert.equal(reply.content, "the model's real answer");
  assert.equal(reply.shortCircuited, false);
  const request = h.llm.requests[0].messages.map((m) => m.content);
  assert.ok(!request.some((c) => c.includes("pushed late")), `late contextMsgs reached the LLM: ${request}`);
  assert.equal(request.at(-1), "hello");
  assert.equal(seen?.extra.late, undefined);
  assert.equal(seen?.errors, 1, "the timeout stays recorded");
  const late = warnings.filter((w) => w.includes('plugin "late" wrote'));
  assert.equal(late.length, 1, `reported once: ${warnings.join("\n")}`);
  assert.match(late[0], /ctx\.response after its on_input run was over/);
});

test("writes through a view count while the stage runs, also into what the handler reads", async () => {
  h.agent.stages.allowAnyToolCalls("edit", true);
  h.agent.stages.register("edit", "before_toolcall", (ctx) => {
    const call = ctx.toolCalls[0];
    if (call) call.arguments.x = 2;
  });
  h.agent.tools.register("demo", { name: "echo", description: "echo", parameters: { type: "object" } }, (a) => a);
  h.llm.enqueue({ toolCalls: [{ name: "echo", arguments: { x: 1 } }] }, { text: "done" });
  await h.agent.injectInputSync("cli", "cli", "hi");
  const tool = h.llm.requests[1].messages.find((m) => m.role === "tool");
  assert.deepEqual(JSON.parse(tool?.content ?? "null"), { x: 2 });
});
