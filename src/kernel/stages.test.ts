/** StageHost as the agent drives it: order, concurrent handlers, isolated failures, short circuits, tool stages. */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import type { Stage, StageContext } from "@homeagent/sdk";
import { STAGES } from "@homeagent/sdk";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { waitFor } from "../../test/fixtures/wait.js";

let h: Harness;
beforeEach(() => {
  h = startAgent();
  h.agent.tools.register("demo", { name: "echo", description: "echo", parameters: { type: "object" } }, (a) => a);
});
afterEach(() => h.close());

const ALL: readonly Stage[] = STAGES;

test("stages run in the documented order, with post_action after every LLM round", async () => {
  const seen: Stage[] = [];
  for (const s of ALL) h.agent.stages.register("p", s, (ctx) => void seen.push(ctx.stage));
  h.llm.enqueue({ toolCalls: [{ name: "echo", arguments: { x: 1 } }] }, { text: "done" });
  const reply = await h.agent.injectInputSync("test", "test", "hi");
  assert.equal(reply.content, "done");
  assert.deepEqual(seen, [
    "on_input",
    "pre_action",
    "post_action",
    "before_toolcall",
    "after_toolcall",
    "post_action",
    "before_output",
    "after_output",
  ]);
});

test("handlers of one stage run concurrently", async () => {
  let started = 0;
  for (let i = 0; i < 3; i++) {
    h.agent.stages.register(`p${i}`, "pre_action", async (ctx) => {
      started++;
      // A sequential host would wait here until this times out: all three start only if they run together.
      await waitFor(() => started === 3, "all three handlers started", { timeoutMs: 2000 });
      ctx.contextMsgs.push({ role: "system", content: `from p${i}` });
    });
  }
  await h.agent.injectInputSync("test", "test", "hi");
  const sys = h.llm.requests[0].messages.filter((m) => m.content.startsWith("from p")).map((m) => m.content);
  assert.deepEqual(sys.sort(), ["from p0", "from p1", "from p2"]);
});

test("a throwing or rejecting handler is isolated and recorded in ctx.errors", async () => {
  let errors: StageContext["errors"] = [];
  let failed = 0;
  let bothFailed: () => void = () => {};
  const afterBothFailed = new Promise<void>((resolve) => {
    bothFailed = resolve;
  });
  const fail = (err: Error): never => {
    if (++failed === 2) bothFailed();
    throw err;
  };
  h.agent.stages.register("bad1", "pre_action", () => fail(new Error("boom")));
  h.agent.stages.register("bad2", "pre_action", async () => fail(new Error("rejected")));
  // It finishes only after both others failed: their failures must not cut the stage short.
  h.agent.stages.register("good", "pre_action", async (ctx) => {
    await afterBothFailed;
    ctx.contextMsgs.push({ role: "system", content: "good ran" });
  });
  h.agent.stages.register("obs", "after_output", (ctx) => {
    errors = [...ctx.errors];
  });
  h.llm.enqueue({ text: "fine" });
  const reply = await h.agent.injectInputSync("test", "test", "hi");
  assert.equal(reply.content, "fine");
  assert.ok(h.llm.requests[0].messages.some((m) => m.content === "good ran"));
  assert.deepEqual(errors.map((e) => `${e.plugin}:${e.stage}:${e.message}`).sort(), [
    "bad1:pre_action:boom",
    "bad2:pre_action:rejected",
  ]);
});

for (const stage of ["on_input", "pre_action", "post_action", "after_toolcall", "before_output"] as const) {
  test(`setting ctx.response in ${stage} short-circuits to after_output`, async () => {
    const seen: Stage[] = [];
    for (const s of ALL) h.agent.stages.register("obs", s, (ctx) => void seen.push(ctx.stage));
    h.agent.stages.register("sc", stage, (ctx) => {
      ctx.response = `answered by ${stage}`;
    });
    h.llm.enqueue({ toolCalls: [{ name: "echo", arguments: {} }] }, { text: "model reply" });
    const reply = await h.agent.injectInputSync("test", "test", "hi");
    assert.equal(reply.content, `answered by ${stage}`);
    assert.equal(reply.shortCircuited, true);
    assert.equal(seen.at(-1), "after_output");
    assert.ok(!seen.includes("before_output") || stage === "before_output", `before_output skipped for ${stage}`);
    const expectedCalls = { on_input: 0, pre_action: 0, post_action: 1, after_toolcall: 1, before_output: 2 }[stage];
    assert.equal(h.llm.requests.length, expectedCalls);
  });
}

test("before_toolcall can refuse a call: the tool does not run and the model reads the refusal", async () => {
  let ran = 0;
  h.agent.tools.register("demo", { name: "rm_all", description: "dangerous", parameters: { type: "object" } }, () => {
    ran++;
    return "deleted";
  });
  h.agent.stages.register("guard", "before_toolcall", (ctx) => {
    if (ctx.toolCalls[0].name === "rm_all") ctx.response = "not allowed";
  });
  h.llm.enqueue({ toolCalls: [{ name: "rm_all" }, { name: "echo", arguments: { a: 1 } }] }, { text: "ok then" });
  const reply = await h.agent.injectInputSync("test", "test", "clean up");
  assert.equal(ran, 0);
  assert.equal(reply.content, "ok then");
  const tools = h.llm.requests[1].messages.filter((m) => m.role === "tool");
  assert.match(tools[0].content, /已被插件拒绝.*not allowed/);
  assert.equal(tools[1].content, '{"a":1}');
});

test("before_toolcall can edit arguments and after_toolcall can rewrite the result", async () => {
  for (const plugin of ["edit", "redact"]) h.agent.stages.allowAnyToolCalls(plugin, true);
  h.agent.stages.register("edit", "before_toolcall", (ctx) => {
    ctx.toolCalls[0].arguments = { secret: "edited" };
  });
  h.agent.stages.register("redact", "after_toolcall", (ctx) => {
    ctx.toolResults[0].content = ctx.toolResults[0].content.replace("edited", "[redacted]");
  });
  h.llm.enqueue({ toolCalls: [{ name: "echo", arguments: { secret: "orig" } }] }, { text: "done" });
  await h.agent.injectInputSync("test", "test", "go");
  const tool = h.llm.requests[1].messages.find((m) => m.role === "tool");
  assert.equal(tool?.content, '{"secret":"[redacted]"}');
});

test("all calls refused ends the loop without another LLM round", async () => {
  h.agent.stages.register("guard", "before_toolcall", (ctx) => {
    ctx.response = "no";
  });
  h.llm.enqueue({ toolCalls: [{ name: "echo" }] });
  const reply = await h.agent.injectInputSync("test", "test", "go");
  assert.equal(h.llm.requests.length, 1);
  assert.match(reply.content, /拒绝/);
});

test("own_tools scope limits tool stages to the plugin's own tools", async () => {
  h.agent.tools.register("mine", { name: "mine_tool", description: "", parameters: { type: "object" } }, () => "m");
  const seen: string[] = [];
  h.agent.stages.register("mine", "before_toolcall", (ctx) => void seen.push(ctx.toolCalls[0].name), "own_tools");
  h.llm.enqueue({ toolCalls: [{ name: "echo" }, { name: "mine_tool" }] }, { text: "x" });
  await h.agent.injectInputSync("test", "test", "go");
  assert.deepEqual(seen, ["mine_tool"]);
});
