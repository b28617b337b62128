/**
 * The `core.*` methods a subprocess plugin may call, and the JSON shape of each one's arguments. Typed over
 * every PluginSDK member, so a member added to the SDK does not compile until it is decided here whether
 * (and with what arguments) it crosses the wire. The types are checked before the call reaches the SDK, so
 * a plugin sending the wrong shape gets "invalid params" naming the argument, not a TypeError from deep
 * inside the daemon.
 */
import { RPC_INVALID_PARAMS, RpcError } from "@homeagent/sdk/protocol";
import type { SdkMember } from "../capabilities.js";

/** "id": a string or an integer (a subscription id). A trailing "?" makes the argument optional. */
type Kind = "string" | "number" | "boolean" | "object" | "array" | "id" | "any";
export type ArgSpec = Kind | `${Kind}?`;

/** `args`: callable with these arguments; `unavailable`: answered "method not found" with this reason. */
export type WireSpec = { args: readonly ArgSpec[] } | { unavailable: string };

const IN_INIT = "it is given in plugin.init";
const APPROVALS_BUILTIN = "only the built-in clients (waiter, the dashboard) answer approvals for the user";

export const WIRE_METHODS: Readonly<Record<SdkMember, WireSpec>> = {
  pluginName: { unavailable: IN_INIT },
  dataDir: { unavailable: IN_INIT },
  daemonDataDir: { unavailable: IN_INIT },
  "log.debug": { args: ["string"] },
  "log.info": { args: ["string"] },
  "log.warn": { args: ["string"] },
  "log.error": { args: ["string"] },
  registerTool: { args: ["object"] },
  unregisterTool: { args: ["string"] },
  registerStage: { args: ["string", "string?", "string?"] },
  registerOutputChannel: { args: ["string", "array", "string", "object?"] },
  registerInputChannel: { args: ["string", "object?"] },
  "settings.get": { args: ["string"] },
  "settings.set": { args: ["string", "string"] },
  "settings.list": { args: [] },
  "settings.define": { args: ["array"] },
  onForget: { args: [] },
  registerEmbeddingProvider: {
    unavailable: "an embedding provider cannot be offered over the plugin protocol (it runs inside the daemon)",
  },
  subscribe: { args: ["string", "id"] },
  // Refused by the bridge with capability_denied: only built-in plugins publish.
  publish: { args: ["string", "object"] },
  injectInput: { args: ["string", "string", "string", "object?"] },
  injectInputSync: { args: ["string", "string", "string", "object?"] },
  injectInterrupt: { args: ["string", "string", "string"] },
  send: { args: ["string", "string", "object?"] },
  "approvals.pending": { unavailable: APPROVALS_BUILTIN },
  "approvals.answer": { unavailable: APPROVALS_BUILTIN },
  "approvals.remembered": { unavailable: APPROVALS_BUILTIN },
  "approvals.revoke": { unavailable: APPROVALS_BUILTIN },
  "approvals.log": { unavailable: APPROVALS_BUILTIN },
  "approvals.setClients": { unavailable: APPROVALS_BUILTIN },
  ask: { args: ["object"] },
  runTool: { unavailable: "only the built-in clients run tools for the user" },
  selfTask: { unavailable: "only built-in plugins run the daemon's own LLM turns" },
  "inbox.count": { args: ["string"] },
  "inbox.peek": { args: ["string", "number?"] },
  "inbox.take": { args: ["string", "number?"] },
  "inbox.remove": { args: ["string", "array"] },
  "config.list": { args: ["string?"] },
  "config.set": { args: ["string", "string"] },
  "config.setMany": { args: ["object"] },
  "config.defs": { args: ["string?"] },
  "auth.required": { args: [] },
  "auth.verify": { args: ["string"] },
  "auth.verifyApiKey": { args: ["string"] },
  "auth.login": { args: ["string", "string", "string"] },
  "auth.session": { args: ["string"] },
  "auth.verifyCsrf": { args: ["string", "string"] },
  "auth.logout": { args: ["string"] },
  "auth.credentialsFile": { args: [] },
  "kernel.status": { args: [] },
  "kernel.toolNames": { args: [] },
  "kernel.tools": { args: [] },
  "kernel.context": { args: [] },
  "kernel.preview": { args: ["string"] },
  "llm.sources": { args: [] },
  "llm.use": { args: ["string"] },
  "llm.test": { args: ["string", "object?"] },
  "memory.recall": { args: ["string", "object?"] },
  "memory.search": { args: ["string", "object?"] },
  "memory.list": { args: ["object"] },
  "memory.timeline": { args: [] },
  "memory.stats": { args: [] },
  "memory.check": { args: ["object?"] },
  "memory.graph": { args: ["object?"] },
  "memory.history": { args: ["object?"] },
  "transcripts.list": { args: ["object?"] },
  "transcripts.choose": { args: ["string"] },
  "memory.commit": { args: ["array", "object?"] },
  "memory.editFact": { args: ["number", "object"] },
  "memory.deleteFact": { args: ["number"] },
  "memory.runLoop": { args: ["string"] },
  "memory.forget": { args: ["string", "object"] },
  "docMemory.query": { args: ["string", "number?"] },
  "docMemory.get": { args: ["string"] },
  "docMemory.list": { args: ["object"] },
  "social.person": { args: ["string"] },
  "social.network": { args: ["string", "number?"] },
  "pluginMgr.list": { args: [] },
  "pluginMgr.enable": { args: ["string"] },
  "pluginMgr.disable": { args: ["string"] },
  "pluginMgr.reload": { args: ["string?"] },
  "pluginMgr.restart": { args: ["string"] },
  "knowledge.tree": { args: [] },
  "knowledge.get": { args: ["string"] },
  "knowledge.put": { args: ["string", "string"] },
  "knowledge.delete": { args: ["string"] },
  "knowledge.search": { args: ["string", "number?"] },
  "adapters.list": { args: [] },
  "adapters.get": { args: ["string"] },
  "adapters.put": { args: ["string", "string"] },
  "adapters.delete": { args: ["string"] },
  setAutoRestart: { args: ["boolean"] },
};

/** Wire methods with no SDK member of their own (`subscribe` returns the unsubscribe function in-process). */
export const EXTRA_METHODS: Readonly<Record<string, readonly ArgSpec[]>> = { unsubscribe: ["id"] };

/** The spec of `member`, or undefined when there is no such member. */
export function wireSpec(member: string): WireSpec | undefined {
  return Object.hasOwn(WIRE_METHODS, member) ? WIRE_METHODS[member as SdkMember] : undefined;
}

/** `params` as the argument list `specs` describes; throws an "invalid params" RpcError naming what is wrong. */
export function checkArgs(method: string, specs: readonly ArgSpec[], params: unknown): unknown[] {
  const args = params === undefined || params === null ? [] : params;
  if (!Array.isArray(args)) {
    throw invalid(`${method}: params must be an array of the method's arguments, got ${kindOf(args)}`);
  }
  if (args.length > specs.length) {
    throw invalid(`${method} takes at most ${specs.length} argument(s), got ${args.length}`);
  }
  specs.forEach((spec, i) => {
    const problem = mismatch(spec, args[i]);
    if (problem) throw invalid(`${method}: argument ${i + 1} ${problem}`);
  });
  // JSON has no undefined: an optional argument sent as null means "not given", as it would in-process.
  return args.map((value) => (value === null ? undefined : value));
}

/** One property of an object argument, checked like an argument; null counts as absent. */
export function checkField(method: string, path: string, spec: ArgSpec, value: unknown): unknown {
  const problem = mismatch(spec, value);
  if (problem) throw invalid(`${method}: ${path} ${problem}`);
  return value === null ? undefined : value;
}

/** What is wrong with `value` for `spec`, or undefined when it fits. */
function mismatch(spec: ArgSpec, value: unknown): string | undefined {
  const optional = spec.endsWith("?");
  const kind = (optional ? spec.slice(0, -1) : spec) as Kind;
  if (value === undefined || value === null) return optional ? undefined : `(${article(kind)}) is missing`;
  return fits(kind, value) ? undefined : `must be ${article(kind)}, got ${kindOf(value)}`;
}

function fits(kind: Kind, value: unknown): boolean {
  switch (kind) {
    case "any":
      return true;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && !Array.isArray(value);
    case "id":
      return typeof value === "string" || Number.isInteger(value);
    default:
      return typeof value === kind;
  }
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "an array" : article(typeof value);
}

function article(kind: string): string {
  if (kind === "id") return "a string or an integer";
  return `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;
}

export function invalid(message: string): RpcError {
  return new RpcError(RPC_INVALID_PARAMS, message, { code: "invalid_params" });
}
