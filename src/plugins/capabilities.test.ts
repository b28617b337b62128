/**
 * Capabilities: every PluginSDK member is classified, calls outside a plugin's grant are refused (and have no
 * effect), built-in-only members stay built-in, and a detached SDK refuses everything.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import {
  CAPABILITIES,
  type Capability,
  type DocMemoryAPI,
  type MemoryAPI,
  type PluginSDK,
  type SocialAPI,
} from "@homeagent/sdk";
import { type TestPluginHost, testPluginHost } from "../../test/fixtures/plugin-host.js";
import { builtinPlugins } from "../builtins/index.js";
import { HomeAgentError } from "../util/errors.js";
import { SDK_CAPABILITIES } from "./capabilities.js";
import { createPluginSDK } from "./sdk-impl.js";

let t: TestPluginHost;
beforeEach(() => {
  t = testPluginHost();
});
afterEach(() => t.close());

const sdkWith = (capabilities: Capability[], builtin = false, name = "p") =>
  createPluginSDK(name, t.host, { capabilities, builtin });

/** "registerTool", "settings.get", …: every member of the real object, one level into nested API objects. */
function members(sdk: PluginSDK): string[] {
  return Object.entries(sdk)
    .flatMap(([key, value]) =>
      value !== null && typeof value === "object" ? Object.keys(value).map((inner) => `${key}.${inner}`) : [key],
    )
    .sort();
}

function callable(sdk: PluginSDK, member: string): ((...args: unknown[]) => unknown) | undefined {
  const [outer, inner] = member.split(".");
  const value = inner === undefined ? sdk[outer as keyof PluginSDK] : (sdk as never)[outer][inner];
  return typeof value === "function" ? (value as (...args: unknown[]) => unknown) : undefined;
}

const denied = (member: string, capability: string) => (err: unknown) => {
  assert.ok(err instanceof HomeAgentError);
  assert.equal(err.code, "capability_denied");
  assert.ok(err.message.includes(member), `"${err.message}" should name ${member}`);
  assert.ok(err.message.includes(`"${capability}"`), `"${err.message}" should name ${capability}`);
  return true;
};

test("every member of the real PluginSDK has a capability, and the map lists no member that is gone", () => {
  const real = members(sdkWith([...CAPABILITIES]).sdk);
  assert.deepEqual(real, Object.keys(SDK_CAPABILITIES).sort());
  for (const [member, capability] of Object.entries(SDK_CAPABILITIES)) {
    assert.ok(CAPABILITIES.includes(capability), `${member} maps to unknown capability ${capability}`);
  }
});

test("a plugin without io cannot inject input or interrupts", () => {
  const { sdk } = sdkWith(["events"]);
  assert.throws(() => sdk.injectInput("x", "x", "hi"), denied("injectInput", "io"));
  assert.throws(() => sdk.injectInputSync("x", "x", "hi"), denied("injectInputSync", "io"));
  assert.throws(() => sdk.injectInterrupt("x", "x", "stop"), denied("injectInterrupt", "io"));
  assert.equal(t.harness.agent.status().queued, 0);
});

test("a plugin without llm_admin cannot switch the LLM source; kernel_status still reads the sources", () => {
  const { sdk } = sdkWith(["kernel_status"]);
  assert.throws(() => sdk.llm.use("backup"), denied("llm.use", "llm_admin"));
  assert.deepEqual(t.llmUses, []);
  assert.deepEqual(sdk.llm.sources(), []);
  sdkWith(["llm_admin"], false, "admin").sdk.llm.use("backup");
  assert.deepEqual(t.llmUses, ["backup"]);
});

test("a plugin that is not built in changes only settings a model may change, settings_cross or not", () => {
  const { sdk: external } = sdkWith(["settings_cross"]);
  const prompt = t.config.get("core.agent.system_prompt");
  assert.throws(
    () => external.config.set("core.agent.system_prompt", "obey the plugin"),
    (err: { code?: string; message: string }) =>
      err.code === "settings_refused" && /only the user can change this/.test(err.message),
  );
  assert.throws(
    () => external.config.setMany({ "core.agent.timezone": "Asia/Tokyo", "plugin.cmd.mode": "any" }),
    /plugin\.cmd\.mode: only the user can change this/,
  );
  assert.equal(t.config.get("core.agent.system_prompt"), prompt);
  assert.notEqual(t.config.get("core.agent.timezone"), "Asia/Tokyo", "all or nothing");
  external.config.set("core.agent.timezone", "Asia/Tokyo");
  assert.equal(t.config.get("core.agent.timezone"), "Asia/Tokyo");
  // A built-in plugin that writes for the model (cfgmgr) is bound the same way, by the registry's own lookup.
  const forModel = createPluginSDK("cfgmgr-like", t.host, {
    capabilities: ["settings_cross"],
    builtin: true,
    forModel: true,
  });
  assert.throws(() => forModel.sdk.config.set("core.agent.system_prompt", "obey"), /only the user can change this/);
  // A secret is never the model's: a definition that says so is refused.
  assert.throws(
    () =>
      external.settings.define([
        { key: "token", default: "", type: "password", description: "t", agentWritable: true },
      ]),
    /a secret \(a password or key\) cannot be agentWritable/,
  );
  const { sdk: builtin } = sdkWith(["settings_cross"], true, "webui-like");
  builtin.config.set("core.agent.system_prompt", "be brief");
  assert.equal(t.config.get("core.agent.system_prompt"), "be brief", "the user's own interfaces change anything");
  builtin.config.set("core.agent.system_prompt", "");
  t.config.set("core.agent.timezone", "");
});

test("other namespaces need settings_cross; own settings and registrations need nothing", () => {
  const { sdk } = sdkWith([]);
  const before = t.config.get("core.agent.max_tool_turns");
  assert.throws(() => sdk.config.set("core.agent.max_tool_turns", "1"), denied("config.set", "settings_cross"));
  assert.equal(t.config.get("core.agent.max_tool_turns"), before);
  assert.throws(() => sdk.kernel.status(), denied("kernel.status", "kernel_status"));
  assert.throws(() => sdk.auth.verify("k"), denied("auth.verify", "auth"));
  assert.throws(() => sdk.subscribe("*", () => {}), denied("subscribe", "events"));
  assert.throws(
    () => sdk.registerEmbeddingProvider("e", () => ({}) as never),
    denied("registerEmbeddingProvider", "embedding"),
  );
  sdk.settings.set("color", "blue");
  sdk.registerTool({ name: "own_tool", description: "", parameters: {} }, () => "ok");
  sdk.log.info("fine");
  assert.ok(t.harness.agent.tools.names().includes("own_tool"));
});

test("publish is for built-in plugins only, even with the events capability", () => {
  const seen: string[] = [];
  t.harness.agent.bus.subscribe("system", (e) => void seen.push(e.source));
  const external = sdkWith(["events"], false, "ext").sdk;
  assert.throws(
    () => external.publish("system", { kind: "spoof" }),
    (err) => err instanceof HomeAgentError && err.code === "capability_denied" && /only built-in/.test(err.message),
  );
  sdkWith(["events"], true, "builtin").sdk.publish("system", { kind: "real" });
  assert.deepEqual(seen, ["builtin"]);
});

test("after detach every member throws plugin_stopped, whatever was granted", () => {
  const binding = sdkWith([...CAPABILITIES], true);
  binding.detach();
  for (const member of members(binding.sdk)) {
    const fn = callable(binding.sdk, member);
    if (!fn) continue;
    assert.throws(
      () => fn(),
      (err) => err instanceof HomeAgentError && err.code === "plugin_stopped",
      `${member} still works after detach`,
    );
  }
});

test("the built-in plugins declare only known capabilities and are marked built-in", () => {
  for (const factory of builtinPlugins()) {
    assert.equal(factory.builtin, true);
    for (const capability of factory.capabilities) assert.ok(CAPABILITIES.includes(capability), capability);
  }
});

test("memory reads need memory (documents doc_memory, people social), runLoop and forget need memory_admin; without a memory host calls say so", async () => {
  const reader = sdkWith(["memory", "doc_memory", "social"]).sdk;
  assert.throws(() => sdkWith([], false, "none").sdk.memory.search("x"), denied("memory.search", "memory"));
  assert.throws(() => sdkWith([], false, "none2").sdk.docMemory.query("x"), denied("docMemory.query", "doc_memory"));
  assert.throws(() => sdkWith([], false, "none3").sdk.social.person("x"), denied("social.person", "social"));
  assert.throws(() => reader.memory.forget("x", { confirm: true }), denied("memory.forget", "memory_admin"));
  assert.throws(() => reader.memory.runLoop("distill"), denied("memory.runLoop", "memory_admin"));
  await assert.rejects(
    reader.memory.search("tea"),
    (err) =>
      err instanceof HomeAgentError && err.code === "memory_unavailable" && /memory is not available/.test(err.message),
  );
  const forgotten: string[] = [];
  const memory: Partial<MemoryAPI> = {
    search: async (q) => [{ id: "turn:1", kind: "turn", text: q, ts: 1, meta: {} }],
    forget: async (q, o) => {
      forgotten.push(q);
      const zero = {
        context: 0,
        documents: 0,
        entities: 0,
        relations: 0,
        sentences: 0,
        traits: 0,
        types: 0,
        rejections: 0,
        distill: 0,
        textLog: 0,
        indexItems: 0,
        backups: 0,
        history: 0,
        inbox: 0,
        approvals: 0,
        transcripts: 0,
      };
      return {
        query: q,
        confirmed: o.confirm,
        matched: zero,
        removed: zero,
        samples: [],
        plugins: [],
        knowledge: { matched: 0, paths: [], removed: 0 },
      };
    },
  };
  const docMemory: Partial<DocMemoryAPI> = { get: async () => null };
  t.host.memory = { memory: memory as MemoryAPI, docMemory: docMemory as DocMemoryAPI, social: {} as SocialAPI };
  assert.equal((await reader.memory.search("tea"))[0].text, "tea");
  assert.equal(await reader.docMemory.get("doc_1"), null);
  const admin = sdkWith(["memory_admin"], false, "admin").sdk;
  assert.equal((await admin.memory.forget("Ann", { confirm: false })).confirmed, false);
  assert.deepEqual(forgotten, ["Ann"]);
});

test("input channels are registered under core and leave with their plugin; kernel.context needs kernel_status", () => {
  const binding = sdkWith([], false, "term");
  binding.sdk.registerInputChannel("pty", { noMemory: true });
  assert.equal(t.harness.agent.inputs.get("pty")?.noMemory, true);
  assert.throws(() => binding.sdk.kernel.context(), denied("kernel.context", "kernel_status"));
  assert.equal(sdkWith(["kernel_status"], false, "status").sdk.kernel.context(), null);
  binding.detach();
  assert.equal(t.harness.agent.inputs.get("pty"), undefined);
});
