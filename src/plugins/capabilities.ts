/**
 * Which capability each PluginSDK member needs. The map is typed over every member path of PluginSDK, so a
 * method added to the SDK does not compile until it is classified here; sdk-impl (and, for subprocess
 * plugins, the RPC host) refuse a call whose capability the plugin was not granted.
 */
import { CAPABILITIES, type Capability, type PluginSDK } from "@homeagent/sdk";
import { CapabilityDeniedError, UnknownCapabilityError } from "./errors.js";

type Fn = (...args: never[]) => unknown;

/** "registerTool", "settings.get", "llm.use", …: top-level members, and the members of nested API objects. */
export type SdkMember = {
  [K in keyof PluginSDK & string]: PluginSDK[K] extends Fn
    ? K
    : PluginSDK[K] extends object
      ? `${K}.${keyof PluginSDK[K] & string}`
      : K;
}[keyof PluginSDK & string];

export const SDK_CAPABILITIES: Readonly<Record<SdkMember, Capability>> = {
  pluginName: "core",
  dataDir: "core",
  daemonDataDir: "core",
  "log.debug": "core",
  "log.info": "core",
  "log.warn": "core",
  "log.error": "core",
  registerTool: "core",
  unregisterTool: "core",
  registerStage: "core",
  registerOutputChannel: "core",
  registerInputChannel: "core",
  "settings.get": "core",
  "settings.set": "core",
  "settings.list": "core",
  "settings.define": "core",
  registerEmbeddingProvider: "embedding",
  onForget: "forget_hook",
  subscribe: "events",
  publish: "events",
  injectInput: "io",
  injectInputSync: "io",
  injectInterrupt: "io",
  send: "io",
  // Answering for the user: the interactive clients are built-in plugins (BUILTIN_ONLY below).
  "approvals.pending": "io",
  "approvals.answer": "io",
  "approvals.remembered": "io",
  "approvals.revoke": "io",
  "approvals.log": "io",
  "approvals.setClients": "io",
  // Only on behalf of the plugin's own running tool call (io/approvals.ts checks it).
  ask: "core",
  // Running a tool for the user, outside any turn: built-in clients only (BUILTIN_ONLY below).
  runTool: "io",
  // The daemon's own LLM turn with an allowlist of tools (a self-test): built-in only (BUILTIN_ONLY below).
  selfTask: "io",
  "inbox.count": "core",
  "inbox.peek": "core",
  "inbox.take": "core",
  "inbox.remove": "core",
  "config.list": "settings_cross",
  "config.set": "settings_cross",
  "config.setMany": "settings_cross",
  "config.defs": "settings_cross",
  "auth.required": "auth",
  "auth.verify": "auth",
  "auth.verifyApiKey": "auth",
  "auth.login": "auth",
  "auth.session": "auth",
  "auth.verifyCsrf": "auth",
  "auth.logout": "auth",
  "auth.credentialsFile": "auth",
  "kernel.status": "kernel_status",
  "kernel.toolNames": "kernel_status",
  "kernel.tools": "kernel_status",
  "kernel.context": "kernel_status",
  // It renders memory's contents (graph facts, archived turns) into text: a memory read, not a status.
  "kernel.preview": "memory",
  // Read-only: the same facts kernel.status() reports, so granting it under `llm` would add nothing.
  "llm.sources": "kernel_status",
  "llm.use": "llm_admin",
  // It spends tokens on a source of the user's choosing: an admin's act.
  "llm.test": "llm_admin",
  "memory.recall": "memory",
  "memory.search": "memory",
  "memory.list": "memory",
  "memory.timeline": "memory",
  "memory.stats": "memory",
  // Read-only (its own read-only connection, then SELECTs): a memory read like stats.
  "memory.check": "memory",
  "memory.graph": "memory",
  "memory.history": "memory",
  "transcripts.list": "memory",
  "transcripts.choose": "memory_admin",
  "memory.commit": "memory_admin",
  "memory.editFact": "memory_admin",
  "memory.deleteFact": "memory_admin",
  "memory.runLoop": "memory_admin",
  "memory.forget": "memory_admin",
  // The original's gradient: documents and people are their own groups, beside the graph.
  "docMemory.query": "doc_memory",
  "docMemory.get": "doc_memory",
  "docMemory.list": "doc_memory",
  "social.person": "social",
  "social.network": "social",
  // Listing included: names, states and errors of the other plugins are for managers, not for every plugin.
  "pluginMgr.list": "plugin_mgr",
  "pluginMgr.enable": "plugin_mgr",
  "pluginMgr.disable": "plugin_mgr",
  "pluginMgr.reload": "plugin_mgr",
  "pluginMgr.restart": "plugin_mgr",
  "knowledge.tree": "knowledge",
  "knowledge.get": "knowledge",
  "knowledge.put": "knowledge",
  "knowledge.delete": "knowledge",
  "knowledge.search": "knowledge",
  // Adapters decide how the daemon talks to every provider, so reading them is an admin's act as well.
  "adapters.list": "llm_admin",
  "adapters.get": "llm_admin",
  "adapters.put": "llm_admin",
  "adapters.delete": "llm_admin",
  setAutoRestart: "core",
};

/**
 * The capability that no SDK member needs: it widens what the plugin's stage patches may do to tool calls
 * (edit and drop calls of any tool, not only of its own; StageHost checks it), not what it may call.
 */
export const ANY_TOOL_CALLS: Capability = "tool_calls_any";

/** Members only built-in plugins may call, whatever capabilities a plugin declares. */
export const BUILTIN_ONLY: ReadonlySet<SdkMember> = new Set<SdkMember>([
  "publish",
  "approvals.pending",
  "approvals.answer",
  "approvals.remembered",
  "approvals.revoke",
  "approvals.log",
  "approvals.setClients",
  "runTool",
  "selfTask",
]);

/** What one plugin may do: its declared capabilities (`core` is implied) and whether it is built in. */
export interface Grant {
  capabilities: readonly Capability[];
  builtin: boolean;
  /** Its config writes are the model's (PluginFactory.forModel): only `agentWritable` settings. */
  forModel?: boolean;
  /** Tools it may have registered at once, when not PLUGIN_LIMITS.tools (PluginFactory.maxTools). */
  maxTools?: number;
}

/** Refuses a declaration naming a capability that does not exist (a typo would otherwise deny silently). */
export function checkDeclared(plugin: string, declared: readonly string[]): void {
  const unknown = declared.filter((name) => !(CAPABILITIES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new UnknownCapabilityError(plugin, unknown);
}

/** Throws CapabilityDeniedError unless `grant` allows calling `member`. */
export function checkAllowed(plugin: string, grant: Grant, member: SdkMember): void {
  const capability = SDK_CAPABILITIES[member];
  if (capability !== "core" && !grant.capabilities.includes(capability)) {
    throw new CapabilityDeniedError(plugin, member, capability);
  }
  if (BUILTIN_ONLY.has(member) && !grant.builtin) throw new CapabilityDeniedError(plugin, member, capability, true);
}
