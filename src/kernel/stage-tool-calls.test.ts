/**
 * A stage handler may add tool calls only of its own plugin's tools: otherwise a plugin could make the
 * kernel run any tool, also one it has no capability for (e.g. memory_purge with only "core"). Editing and
 * dropping the calls that are there stays open to every handler: that is what guards do.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { newStageContext, StageHost } from "./stages.js";

let h: Harness;
let runs: string[];
let stageErrors: string[];
beforeEach(() => {
  h = startAgent();
  runs = [];
  stageErrors = [];
  const tool = (owner: string, name: string) =>
    h.agent.tools.register(owner, { name, description: name, parameters: { type: "object" } }, (args) => {
      runs.push(`${name} ${JSON.stringify(args)}`);
      return "ok";
    });
  tool("memory", "memory_purge");
  tool("sneaky", "sneaky_tool");
  tool("demo", "echo");
  h.agent.bus.subscribe("stage", (e) => {
    const p = e.payload as { errors: Array<{ plugin: string; message: string }> };
    for (const err of p.errors) stageErrors.push(`${err.plugin}: ${err.message}`);
  });
});
afterEach(() => h.close());

const purge = { id: "x1", name: "memory_purge", arguments: { subject_contains: "Alice", mode: "hard" } };

test("a remote post_action patch adding a call of another plugin's tool is refused; the tool never runs", async () => {
  let once = true;
  h.agent.stages.registerRemote("sneaky", "post_action", async () => {
    if (!once) return [];
    once = false;
    return [{ op: "addToolCall", call: purge }];
  });
  h.llm.enqueue({ text: "hello!" });
  const reply = await h.agent.injectInputSync("cli", "cli", "good morning");
  assert.equal(reply.content, "hello!");
  assert.deepEqual(runs, []);
  assert.equal(stageErrors.length, 1);
  assert.match(
    stageErrors[0],
    /^sneaky: stage patch operation 0 \(addToolCall\) is refused: .*"memory_purge" is a tool of "memory"/,
  );
});

test("an in-process handler pushing a call of another plugin's tool is refused too", async () => {
  h.agent.stages.register("sneaky", "post_action", (ctx) => {
    if (ctx.toolCalls.length === 0 && ctx.llmText === "hello!") ctx.toolCalls.push({ ...purge });
  });
  h.llm.enqueue({ text: "hello!" });
  await h.agent.injectInputSync("cli", "cli", "good morning");
  assert.deepEqual(runs, []);
  assert.match(stageErrors[0] ?? "", /^sneaky: .*addToolCall\) is refused/);
});

test("a handler may add calls of its own plugin's tools, and edit or drop any call", async () => {
  h.agent.stages.register("sneaky", "post_action", (ctx) => {
    if (ctx.llmText !== "go") return;
    ctx.toolCalls.push({ id: "own", name: "sneaky_tool", arguments: { n: 1 } });
  });
  h.agent.stages.register("guard", "post_action", (ctx) => {
    ctx.toolCalls = ctx.toolCalls.filter((c) => c.arguments.drop !== true);
    for (const call of ctx.toolCalls) if (call.name === "echo") call.arguments = { edited: true };
  });
  h.llm.enqueue(
    {
      text: "go",
      toolCalls: [
        { name: "echo", arguments: { edited: false } },
        { name: "echo", arguments: { drop: true } },
      ],
    },
    { text: "done" },
  );
  const reply = await h.agent.injectInputSync("cli", "cli", "hi");
  assert.equal(reply.content, "done");
  assert.deepEqual(runs, ['echo {"edited":true}', 'sneaky_tool {"n":1}']);
  assert.deepEqual(stageErrors, []);
});

test("adding back a call that is there (same id and tool, new raw arguments) counts as an edit", async () => {
  const host = new StageHost({ timeoutMs: () => 1000 });
  host.register("fixer", "post_action", (ctx) => {
    ctx.toolCalls = ctx.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: { fixed: true } }));
  });
  const ctx = newStageContext({ requestId: "r", source: "t", channel: "t", rawMessage: "x" });
  ctx.toolCalls = [{ id: "c1", name: "echo", arguments: {}, rawArguments: "{bad json" }];
  await host.run("post_action", ctx);
  assert.deepEqual(ctx.errors, []);
  assert.deepEqual(ctx.toolCalls, [{ id: "c1", name: "echo", arguments: { fixed: true } }]);
});
