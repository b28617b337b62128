/**
 * The public surface of @homeagent/sdk, checked in. Plugins outside this repository compile against these
 * names and values, so any change here has to be deliberate: update the lists below in the same change,
 * and bump PLUGIN_API_VERSION when something is removed or changes meaning.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import * as sdk from "./index.js";
import * as sdkTest from "./test.js";

/** Each runtime export: "function" for functions and classes, the value itself for constants. */
function surface(module: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(module)
      .sort()
      .map((name) => [name, typeof module[name] === "function" ? "function" : module[name]]),
  );
}

/** Member names of an object, one level into nested objects, without reading getters. */
function members(obj: object): string[] {
  return Object.keys(obj)
    .flatMap((key) => {
      const { value } = Object.getOwnPropertyDescriptor(obj, key) ?? {};
      const nested = value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Map);
      return nested ? Object.keys(value).map((inner) => `${key}.${inner}`) : [key];
    })
    .sort();
}

test("@homeagent/sdk exports exactly the checked-in names and constants", () => {
  assert.deepEqual(surface(sdk), {
    CAPABILITIES: [
      "core",
      "io",
      "memory",
      "memory_admin",
      "doc_memory",
      "knowledge",
      "text_memory",
      "llm",
      "llm_admin",
      "social",
      "events",
      "settings_cross",
      "plugin_mgr",
      "auth",
      "kernel_status",
      "embedding",
      "tool_calls_any",
      "forget_hook",
    ],
    CapAudio: 8,
    CapFile: 2,
    CapImage: 4,
    CapStructured: 16,
    CapText: 1,
    EMBEDDING_SPECIFICATION_VERSION: 1,
    EVENT_TYPES: [
      "raw_input",
      "agent_output",
      "agent_llm_chain",
      "tool_call",
      "reasoning",
      "stage",
      "system",
      "reasoning_delta",
      "content_delta",
    ],
    ErrModalityUnsupported: "function",
    PLUGIN_API_VERSION: 1,
    STAGES: [
      "on_input",
      "pre_action",
      "post_action",
      "before_toolcall",
      "after_toolcall",
      "before_output",
      "after_output",
    ],
    definePlugin: "function",
    foldForForget: "function",
    forgetMatcher: "function",
    textInput: "function",
  });
});

test("@homeagent/sdk/test exports exactly the checked-in names", () => {
  assert.deepEqual(surface(sdkTest), { createMockSDK: "function" });
});

test("the mock SDK has every checked-in PluginSDK member, plus its recording and driving members", () => {
  const pluginSDK = [
    "adapters.delete",
    "adapters.get",
    "adapters.list",
    "adapters.put",
    "auth.login",
    "auth.logout",
    "auth.required",
    "auth.session",
    "auth.verify",
    "auth.verifyApiKey",
    "auth.verifyCsrf",
    "config.defs",
    "config.list",
    "config.set",
    "config.setMany",
    "daemonDataDir",
    "dataDir",
    "docMemory.get",
    "docMemory.list",
    "docMemory.query",
    "injectInput",
    "injectInputSync",
    "injectInterrupt",
    "kernel.context",
    "kernel.preview",
    "kernel.status",
    "kernel.toolNames",
    "knowledge.delete",
    "knowledge.get",
    "knowledge.put",
    "knowledge.search",
    "knowledge.tree",
    "llm.sources",
    "llm.test",
    "llm.use",
    "log.debug",
    "log.error",
    "log.info",
    "log.warn",
    "memory.commit",
    "memory.deleteFact",
    "memory.editFact",
    "memory.forget",
    "memory.graph",
    "memory.history",
    "memory.list",
    "memory.recall",
    "memory.runLoop",
    "memory.search",
    "memory.stats",
    "memory.timeline",
    "onForget",
    "pluginMgr.disable",
    "pluginMgr.enable",
    "pluginMgr.list",
    "pluginMgr.reload",
    "pluginName",
    "publish",
    "registerEmbeddingProvider",
    "registerInputChannel",
    "registerOutputChannel",
    "registerStage",
    "registerTool",
    "settings.define",
    "settings.get",
    "settings.list",
    "settings.set",
    "setAutoRestart",
    "social.network",
    "social.person",
    "subscribe",
  ];
  const mockOnly = [
    "apiKey",
    "autoRestart",
    "callTool",
    "channels",
    "embeddingProviders",
    "emit",
    "forgetHandler",
    "inputChannels",
    "inputs",
    "interrupts",
    "logs",
    "preferredSource",
    "published",
    "stages",
    "subscriptions",
    "tools",
  ];
  assert.deepEqual(members(sdkTest.createMockSDK()), [...pluginSDK, ...mockOnly].sort());
});
