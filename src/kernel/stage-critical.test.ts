/**
 * Fail-closed stages of a critical plugin (StageHost.closeFor / reopen): while the plugin is not running,
 * stand-ins in its handlers' places refuse with a reason, so a guard that is down refuses tool calls
 * instead of letting them through; while it runs, a handler of it that fails refuses in its place.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import type { StagePatch } from "@homeagent/sdk/protocol";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { newStageContext, refusalOf, StageHost } from "./stages.js";

let h: Harness;
let ran: number;
beforeEach(() => {
  h = startAgent();
  ran = 0;
  h.agent.tools.register("demo", { name: "echo", description: "echo", parameters: { type: "object" } }, (a) => {
    ran++;
    return a;
  });
});
afterEach(() => h.close());

test("a closed before_toolcall guard makes the kernel refuse the tool call, saying why", async () => {
  h.agent.stages.register("guard", "before_toolcall", () => {});
  h.agent.stages.closeFor("guard", "exited with code 1");
  h.llm.enqueue({ toolCalls: [{ name: "echo", arguments: { a: 1 } }] });
  const reply = await h.agent.injectInputSync("cli", "cli", "go");
  assert.equal(ran, 0, "the tool did not run");
  const expected =
    'refused: plugin "guard" (critical) is not running (exited with code 1); fix it, or /plugins disable guard';
  assert.equal(refusalOf("guard", "exited with code 1"), expected);
  assert.ok(reply.content.includes(expected), reply.content);
  assert.equal(h.llm.requests.length, 1, "every call refused: no further LLM round");
});

test("reopen lets calls through again; the restarted guard keeps its place among the handlers", async () => {
  const order: string[] = [];
  const guard = () => void order.push("guard");
  h.agent.stages.register("a", "before_toolcall", () => void order.push("a"));
  h.agent.stages.register("guard", "before_toolcall", guard);
  h.agent.stages.register("b", "before_toolcall", () => void order.push("b"));
  h.agent.stages.closeFor("guard", "crashed");
  h.agent.stages.closeFor("guard", "restarting");
  // The plugin starts again: it registers anew, then the host reopens it.
  h.agent.stages.register("guard", "before_toolcall", guard);
  assert.equal(h.agent.stages.reopen("guard"), 1);
  assert.equal(h.agent.stages.count("before_toolcall"), 3);
  h.llm.enqueue({ toolCalls: [{ name: "echo", arguments: { a: 1 } }] }, { text: "done" });
  const reply = await h.agent.injectInputSync("cli", "cli", "go");
  assert.equal(reply.content, "done");
  assert.equal(ran, 1);
  const host = new StageHost({ timeoutMs: () => 1000 });
  for (const p of ["a", "guard", "b"]) {
    host.register(p, "pre_action", (ctx) => void ctx.contextMsgs.push({ role: "system", content: p }));
  }
  host.closeFor("guard", "down");
  host.register("guard", "pre_action", (ctx) => void ctx.contextMsgs.push({ role: "system", content: "guard again" }));
  host.reopen("guard");
  const ctx = newStageContext({ requestId: "r", source: "t", channel: "t", rawMessage: "x" });
  await host.run("pre_action", ctx);
  assert.deepEqual(
    ctx.contextMsgs.map((m) => m.content),
    ["a", "guard again", "b"],
  );
});

test("no other handler can override the refusal of a closed stage", async () => {
  const conflicts: string[] = [];
  const host = new StageHost({
    timeoutMs: () => 1000,
    onConflict: (field, winner, loser) => void conflicts.push(`${field} ${winner}>${loser}`),
  });
  host.register("guard", "on_input", () => {});
  host.register("later", "on_input", (ctx) => {
    ctx.response = "allowed after all";
  });
  host.closeFor("guard", "exited");
  const ctx = newStageContext({ requestId: "r", source: "t", channel: "t", rawMessage: "x" });
  await host.run("on_input", ctx);
  assert.equal(ctx.response, refusalOf("guard", "exited"));
  assert.deepEqual(conflicts, ["response guard>later"]);
});

test("closing listed stages of a plugin that never registered them, and dropping stand-ins on unregister", async () => {
  h.agent.stages.register("guard", "on_input", () => {});
  h.agent.stages.closeFor("guard", "failed to start", ["before_toolcall"]);
  assert.equal(h.agent.stages.count("before_toolcall"), 1);
  assert.equal(h.agent.stages.count("on_input"), 1, "stages not listed are left as they were");
  h.llm.enqueue({ toolCalls: [{ name: "echo" }] });
  const reply = await h.agent.injectInputSync("cli", "cli", "go");
  assert.equal(ran, 0);
  assert.match(reply.content, /not running \(failed to start\)/);
  assert.equal(h.agent.stages.unregisterPlugin("guard"), 2);
  assert.equal(h.agent.stages.count(), 0);
});

test("a closed own_tools guard refuses only the calls of its own tools", async () => {
  h.agent.tools.register("guard", { name: "guarded", description: "", parameters: { type: "object" } }, () => {
    ran += 10;
    return "ran";
  });
  h.agent.stages.register("guard", "before_toolcall", () => {}, "own_tools");
  h.agent.stages.closeFor("guard", "exited");
  h.llm.enqueue({ toolCalls: [{ name: "guarded" }, { name: "echo" }] }, { text: "done" });
  await h.agent.injectInputSync("cli", "cli", "go");
  assert.equal(ran, 1, "echo ran, guarded did not");
  const tools = h.llm.requests[1].messages.filter((m) => m.role === "tool");
  assert.match(tools[0].content, /refused: plugin "guard" \(critical\) is not running \(exited\)/);
});

test("a running critical guard that fails refuses the call, saying why; a non-critical one fails open", async () => {
  const failures: Record<string, () => Promise<StagePatch>> = {
    threw: async () => {
      throw new Error('plugin "guard" (stage.invoke): message over the 1048576-byte frame limit; send less');
    },
    "bad patch": async () => [{ op: "set", field: "response", value: 42 }] as unknown as StagePatch,
    "timed out": () => new Promise<StagePatch>(() => {}),
    "over a bound": async () => [{ op: "mergeExtra", values: { k: "x".repeat(300 * 1024) } }],
  };
  h.settings.stageTimeout = 50;
  for (const [what, fail] of Object.entries(failures)) {
    for (const critical of [true, false]) {
      const before = ran;
      h.agent.stages.registerRemote("guard", "before_toolcall", fail);
      h.agent.stages.setCritical("guard", critical);
      // A refused call ends the turn (no further LLM round); one that ran gets the model's "done".
      h.llm.enqueue({ toolCalls: [{ name: "echo", arguments: { a: 1 } }] }, ...(critical ? [] : [{ text: "done" }]));
      const reply = await h.agent.injectInputSync("cli", "cli", "go");
      h.agent.stages.unregisterPlugin("guard");
      if (!critical) {
        assert.equal(ran, before + 1, `${what}, not critical: the call ran`);
        continue;
      }
      assert.equal(ran, before, `${what}: the call did not run`);
      assert.match(
        reply.content,
        /refused: plugin "guard" \(critical\) failed in before_toolcall \(.+\); fix it/,
        what,
      );
    }
  }
});

test("the refusal of a failed critical handler cannot be overridden, and its message is bounded", async () => {
  const host = new StageHost({ timeoutMs: () => 1000 });
  host.setCritical("guard", true);
  host.register("guard", "on_input", () => {
    throw new Error("x".repeat(10_000));
  });
  host.register("later", "on_input", (ctx) => {
    ctx.response = null;
    ctx.finalText = "still applied";
  });
  const ctx = newStageContext({ requestId: "r", source: "t", channel: "t", rawMessage: "x" });
  await host.run("on_input", ctx);
  assert.match(ctx.response ?? "", /^refused: plugin "guard" \(critical\) failed in on_input \(x+…\)/);
  assert.ok((ctx.response ?? "").length < 700, "the quoted error is cut short");
  assert.ok(ctx.errors[0].message.length <= 501);
  assert.equal(ctx.finalText, "still applied");
  host.setCritical("guard", false);
  const open = newStageContext({ requestId: "r2", source: "t", channel: "t", rawMessage: "x" });
  await host.run("on_input", open);
  assert.equal(open.response, null, "no longer critical: it fails open");
});

test("a critical handler whose patch would take the context over its bounds refuses in its place", async () => {
  const host = new StageHost({ timeoutMs: () => 1000 });
  host.setCritical("guard", true);
  host.register("filler", "pre_action", (ctx) => {
    ctx.extra.fill = "x".repeat(200 * 1024);
  });
  host.register("guard", "pre_action", (ctx) => {
    ctx.extra.mine = "y".repeat(100 * 1024);
  });
  const ctx = newStageContext({ requestId: "r", source: "t", channel: "t", rawMessage: "x" });
  await host.run("pre_action", ctx);
  assert.deepEqual(Object.keys(ctx.extra), ["fill"]);
  assert.match(
    ctx.response ?? "",
    /^refused: plugin "guard" \(critical\) failed in pre_action \(stage patch refused: it would make ctx\.extra/,
  );
});
