/**
 * Registration limits of one plugin, in-process (the same quota counts a subprocess plugin's registrations,
 * see bridge.test.ts): each count stops at its limit with an error naming it, and a tool schema that is too
 * large or too deep (even 100,000 levels, or a cycle) is refused before anything recursive reads it, so the
 * agent's turns keep working.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { type TestPluginHost, testPluginHost } from "../../test/fixtures/plugin-host.js";
import { HomeAgentError } from "../util/errors.js";
import { PLUGIN_LIMITS } from "./limits.js";
import { createPluginSDK } from "./sdk-impl.js";

let t: TestPluginHost;
beforeEach(() => {
  t = testPluginHost();
});
afterEach(() => t.close());

const limit = (pattern: RegExp) => (err: unknown) => {
  assert.ok(err instanceof HomeAgentError, String(err));
  assert.equal(err.code, "plugin_limit");
  assert.match(err.message, pattern);
  return true;
};

/** `{"a": {"a": … {}}}`, `depth` levels, built without recursion. */
function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 1; i < depth; i++) {
    const next: Record<string, unknown> = {};
    at.a = next;
    at = next;
  }
  return root;
}

test("counts stop at their limits, naming them: tools, stage handlers, output and input channels", () => {
  const { sdk } = createPluginSDK("greedy", t.host, { capabilities: [], builtin: false });
  const handler = async () => "ok";
  for (let i = 0; i < PLUGIN_LIMITS.tools; i++) {
    sdk.registerTool({ name: `t${i}`, description: "d", parameters: { type: "object" } }, handler);
  }
  assert.throws(
    () => sdk.registerTool({ name: "one_more", description: "d", parameters: {} }, handler),
    limit(/plugin "greedy" is refused: it already registered 128 tools.*limit tools = 128/),
  );
  for (let i = 0; i < PLUGIN_LIMITS.stageHandlers; i++) sdk.registerStage("pre_action", () => {});
  assert.throws(() => sdk.registerStage("pre_action", () => {}), limit(/64 stage handlers.*stageHandlers = 64/));
  for (let i = 0; i < PLUGIN_LIMITS.outputChannels; i++)
    sdk.registerOutputChannel(`o${i}`, ["text"], "d", async () => ({}));
  assert.throws(
    () => sdk.registerOutputChannel("o_more", ["text"], "d", async () => ({})),
    limit(/32 output channels.*outputChannels = 32/),
  );
  for (let i = 0; i < PLUGIN_LIMITS.inputChannels; i++) sdk.registerInputChannel(`i${i}`);
  assert.throws(() => sdk.registerInputChannel("i_more"), limit(/32 input channels.*inputChannels = 32/));
  assert.equal(t.harness.agent.stages.count("pre_action"), PLUGIN_LIMITS.stageHandlers);
  assert.ok(!t.harness.agent.tools.names().includes("one_more"));
});

test("a refused registration does not count: a failed one leaves room for the next", () => {
  const { sdk } = createPluginSDK("careful", t.host, { capabilities: [], builtin: false });
  for (let i = 0; i < PLUGIN_LIMITS.tools + 5; i++) {
    // The bad name is refused by the tool registry, not counted against the plugin.
    assert.throws(() => sdk.registerTool({ name: "bad name", description: "", parameters: {} }, async () => ""));
  }
  sdk.registerTool({ name: "still_room", description: "", parameters: {} }, async () => "");
  assert.ok(t.harness.agent.tools.names().includes("still_room"));
});

test("a tool schema too deep (100,000 levels, or a cycle), too large, or too long a description is refused; turns still work", async () => {
  const { sdk } = createPluginSDK("schemer", t.host, { capabilities: [], builtin: false });
  const register = (name: string, parameters: Record<string, unknown>, description = "d") =>
    sdk.registerTool({ name, description, parameters }, async () => "");
  assert.throws(() => register("deep", nested(100_000)), limit(/tool "deep": its parameters nest deeper than 32/));
  assert.throws(() => register("deep33", nested(33)), limit(/nest deeper than 32 levels \(limit toolParamsDepth\)/));
  register("deep32", nested(32));
  const cycle: Record<string, unknown> = { type: "object" };
  cycle.self = cycle;
  assert.throws(() => register("cycle", cycle), limit(/tool "cycle": its parameters nest deeper/));
  assert.throws(
    () => register("big", { type: "object", description: "x".repeat(PLUGIN_LIMITS.toolDefBytes) }),
    limit(/tool "big": its definition is over 65536 bytes as JSON \(limit toolDefBytes\)/),
  );
  // A DAG: few objects, but 2^31 paths; the walk stops at its node bound instead of running for hours.
  let dag: Record<string, unknown> = {};
  for (let i = 0; i < 31; i++) dag = { l: dag, r: dag };
  assert.throws(() => register("dag", dag), limit(/tool "dag": its definition is over 65536 bytes/));
  assert.throws(
    () => register("chatty", { type: "object" }, "y".repeat(PLUGIN_LIMITS.descriptionChars + 1)),
    limit(/tool "chatty" description is 4097 characters, over the 4096-character limit \(descriptionChars\)/),
  );
  assert.throws(
    () => sdk.registerOutputChannel("loud", ["text"], "z".repeat(5000), async () => ({})),
    limit(/output channel "loud" description is 5000 characters/),
  );
  assert.deepEqual(
    t.harness.agent.tools.names().filter((n) => !n.startsWith("output_") && n !== "tool_search"),
    ["deep32"],
  );
  t.harness.llm.enqueue({ text: "still fine" });
  const reply = await t.harness.agent.injectInputSync("cli", "cli", "hello");
  assert.equal(reply.content, "still fine");
});

test("an unregistered tool leaves the model's list and gives its place back; another plugin's tool is not its to remove", () => {
  const { sdk } = createPluginSDK("changing", t.host, { capabilities: ["kernel_status"], builtin: false });
  const other = createPluginSDK("other", t.host, { capabilities: [], builtin: false }).sdk;
  const handler = async () => "ok";
  other.registerTool({ name: "theirs", description: "d", parameters: { type: "object" } }, handler);
  for (let i = 0; i < PLUGIN_LIMITS.tools; i++) {
    sdk.registerTool({ name: `t${i}`, description: "d", parameters: { type: "object" } }, handler);
  }
  assert.equal(sdk.unregisterTool("theirs"), false);
  assert.equal(sdk.unregisterTool("t0"), true);
  assert.equal(sdk.unregisterTool("t0"), false, "gone already");
  sdk.registerTool({ name: "t0_again", description: "d", parameters: { type: "object" } }, handler);
  const infos = sdk.kernel.tools();
  assert.ok(!infos.some((info) => info.name === "t0"));
  assert.deepEqual(
    infos.find((info) => info.name === "theirs"),
    { name: "theirs", description: "d", parameters: { type: "object" }, owner: "other", noMemory: false },
  );
  assert.ok(infos.some((info) => info.name === "t0_again" && info.owner === "changing"));
});
