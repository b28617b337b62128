/**
 * Defects 10 and 11: tool names are unique across plugins, the kernel and output channels (a provider
 * rejects a request listing one function twice), and kernel tool names are reserved, so a plugin asking
 * for one has its registration refused instead of aborting the daemon's start.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { OutputCapability, ToolDef } from "@homeagent/sdk";
import { startAgent } from "../../test/fixtures/kernel-harness.js";
import { OutputChannels } from "../io/output-channels.js";
import { KERNEL_OWNER, ToolNameError, ToolRegistry } from "./tools.js";

const def = (name: string): ToolDef => ({ name, description: name, parameters: { type: "object" } });

function registries() {
  const tools = new ToolRegistry();
  const outputs = new OutputChannels((names, claimant) => tools.assertFree(names, claimant));
  tools.addSource(outputs);
  return { tools, outputs };
}

test("a tool first, then a channel generating the same name: the channel is refused", () => {
  const { tools, outputs } = registries();
  tools.register("p1", def("output_send__cli"), () => "x");
  assert.throws(
    () => outputs.register("cli-plugin", "cli", ["text"], "terminal", () => {}),
    (err: unknown) =>
      err instanceof ToolNameError &&
      err.code === "tool_name_taken" &&
      /output channel "cli" of plugin "cli-plugin" is refused: the tool name "output_send__cli" is already registered by plugin "p1"/.test(
        err.message,
      ),
  );
  assert.deepEqual(outputs.names(), []);
});

test("a channel first, then a tool of one of its names: the tool is refused", () => {
  const { tools, outputs } = registries();
  outputs.register("cli-plugin", "cli", ["text"], "terminal", () => {});
  for (const name of ["output_send__cli", "output_send__cli_help", "output_list_channels"]) {
    assert.throws(() => tools.register("p1", def(name), () => "x"), ToolNameError, name);
  }
  assert.throws(
    () => tools.register("p1", def("output_send__cli_help"), () => "x"),
    /output channel "cli" of plugin "cli-plugin"/,
  );
});

test("a channel whose names collide with another channel's is refused, in either order", () => {
  const first = registries();
  first.outputs.register("a", "cli", ["text"], "terminal", () => {});
  assert.throws(
    () => first.outputs.register("b", "cli_help", ["text"], "help desk", () => {}),
    /output_send__cli_help/,
  );
  const second = registries();
  second.outputs.register("b", "cli_help", ["text"], "help desk", () => {});
  assert.throws(() => second.outputs.register("a", "cli", ["text"], "terminal", () => {}), /output_send__cli_help/);
});

test("whatever the order of registrations, the tools sent to the LLM have unique names", async () => {
  const steps: Array<[string, (h: ReturnType<typeof startAgent>) => void]> = [
    ["tool output_send__cli", (h) => h.agent.tools.register("p1", def("output_send__cli"), () => 1)],
    ["tool output_send__cli_help", (h) => h.agent.tools.register("p2", def("output_send__cli_help"), () => 1)],
    ["channel cli", (h) => h.agent.outputs.register("p3", "cli", ["text"], "cli", () => {})],
    ["channel cli_help", (h) => h.agent.outputs.register("p4", "cli_help", ["text"], "help", () => {})],
    ["kernel tool knowledge_search", (h) => h.agent.tools.register(KERNEL_OWNER, def("knowledge_search"), () => 1)],
    ["plugin tool knowledge_search", (h) => h.agent.tools.register("p5", def("knowledge_search"), () => 1)],
  ];
  for (const order of [
    [0, 1, 2, 3, 4, 5],
    [2, 3, 0, 1, 5, 4],
    [3, 2, 1, 0, 4, 5],
    [1, 3, 5, 0, 2, 4],
  ]) {
    const h = startAgent();
    try {
      for (const i of order) {
        try {
          steps[i][1](h);
        } catch (err) {
          assert.ok(err instanceof ToolNameError, `${steps[i][0]} failed with ${err}`);
        }
      }
      h.llm.enqueue({ text: "ok" });
      await h.agent.injectInputSync("t", "t", "hi");
      const names = (h.llm.requests[0].tools ?? []).map((t) => t.function.name);
      assert.deepEqual(names, [...new Set(names)], `order ${order.join(",")}: ${names.join(", ")}`);
    } finally {
      await h.close();
    }
  }
});

test("kernel tool names are reserved: a plugin registering one is refused, the kernel's stays", async () => {
  const { tools } = registries();
  tools.register(KERNEL_OWNER, def("llm_list_sources"), () => "kernel");
  assert.throws(
    () => tools.register("evil", def("llm_list_sources"), () => "plugin"),
    (err: unknown) =>
      err instanceof ToolNameError &&
      err.code === "tool_name_reserved" &&
      /plugin "evil" is refused: "llm_list_sources" is reserved for a kernel tool/.test(err.message),
  );
  assert.equal(tools.get("llm_list_sources")?.owner, KERNEL_OWNER);
});

test("names reserved for kernel tools that register later cannot be taken by a plugin meanwhile", () => {
  const { tools, outputs } = registries();
  tools.reserve(["knowledge_search", "output_send__kb"]);
  assert.throws(() => tools.register("p", def("knowledge_search"), () => 1), /reserved for a kernel tool/);
  assert.throws(() => outputs.register("p", "kb", ["text"], "kb", () => {}), /reserved for a kernel tool/);
  tools.register(KERNEL_OWNER, def("knowledge_search"), () => "kernel");
  assert.equal(tools.get("knowledge_search")?.owner, KERNEL_OWNER);
});

test("a tool that ignores its abort signal is abandoned when the signal fires", async () => {
  const { tools } = registries();
  tools.register("p", def("stuck"), () => new Promise(() => {}));
  const abort = new AbortController();
  const outcome = tools.execute(
    { id: "c1", name: "stuck", arguments: {} },
    { requestId: "r", source: "s", channel: "c", signal: abort.signal },
  );
  abort.abort(new Error("the daemon is shutting down"));
  assert.deepEqual(await outcome, {
    status: "error",
    content: "error: tool stuck failed: the daemon is shutting down",
  });
});

test("a tool that never finishes is abandoned at core.agent.tool_timeout and the model is told", async () => {
  const h = startAgent();
  try {
    h.settings.toolTimeout = 50;
    h.agent.tools.register("p", def("stuck"), () => new Promise(() => {}));
    h.llm.enqueue({ toolCalls: [{ name: "stuck", arguments: {} }] }, { text: "gave up on it" });
    const reply = await h.agent.injectInputSync("cli", "cli", "run the stuck tool");
    assert.equal(reply.content, "gave up on it");
    const toolMessage = h.llm.requests[1].messages.find((m) => m.role === "tool");
    assert.match(toolMessage?.content ?? "", /stuck failed: did not finish within 50 ms \(core\.agent\.tool_timeout\)/);
  } finally {
    await h.close();
  }
});

test("an output channel's capabilities are names from OUTPUT_CAPABILITIES; another is refused, listing them", () => {
  const { outputs } = registries();
  const bad = ["text", "smell"] as unknown as OutputCapability[];
  assert.throws(
    () => outputs.register("p", "nose", bad, "nose", () => {}),
    /unknown output channel capability "smell": use text, file, image, audio, structured/,
  );
  assert.throws(
    () => outputs.register("p", "nose", 1 as unknown as OutputCapability[], "nose", () => {}),
    /capabilities are a list such as \["text"\], not 1/,
  );
  assert.deepEqual(outputs.names(), []);
  outputs.register("p", "lamp", ["image", "text", "text"], "the desk lamp", () => {});
  const list = outputs.tools().find((t) => t.def.name === "output_list_channels");
  assert.deepEqual(list?.handler({}, undefined as never), [
    { name: "lamp", caps: ["text", "image"], description: "the desk lamp", tool: "output_send__lamp" },
  ]);
});
