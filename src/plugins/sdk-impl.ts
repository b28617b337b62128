/**
 * The PluginSDK each plugin receives. Everything a plugin registers is recorded here, so that stopping
 * or crashing the plugin detaches all of it at once; every call passes a gate that checks the plugin's
 * capabilities and, once the plugin is detached, refuses everything, so a failed or stopped plugin (or a
 * timer it left running) cannot act through an SDK it still holds.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type {
  AdaptersAPI,
  AuthAPI,
  DocMemoryAPI,
  KernelStatus,
  KnowledgeAPI,
  LlmAPI,
  Logger,
  MemoryAPI,
  PluginInfo,
  PluginSDK,
  ReloadReport,
  SelfTaskRequest,
  SendResult,
  SocialAPI,
  TranscriptEntry,
  TranscriptQuery,
} from "@homeagent/sdk";
import type { ConfigRegistry } from "../config/registry.js";
import type { EmbeddingRegistry } from "../embedding/spi.js";
import type { ApprovalBroker } from "../io/approvals.js";
import { INBOX_MAX_TEXT_CHARS, type Inbox } from "../io/inbox.js";
import { checkChannelClaim, checkInjectClaim } from "../io/reserved-channels.js";
import type { Agent, SelfTaskOptions } from "../kernel/agent.js";
import { cutText } from "../util/cut-text.js";
import { HomeAgentError } from "../util/errors.js";
import { ANY_TOOL_CALLS, checkAllowed, type Grant, type SdkMember } from "./capabilities.js";
import { PluginStoppedError } from "./errors.js";
import type { ForgetHooks } from "./forget-hooks.js";
import { RegistrationQuota } from "./limits.js";

/** What the memory layer offers plugins; the daemon fills it in once memory.db is open. */
export interface MemoryHost {
  memory: MemoryAPI;
  docMemory: DocMemoryAPI;
  social: SocialAPI;
}

/** What the plugin registry offers `pluginMgr`; `by` names the plugin that asked, for the disabled list. */
export interface PluginManagerHost {
  list(): PluginInfo[];
  enable(name: string): Promise<void>;
  disable(name: string, by: string): Promise<void>;
  reload(name?: string): Promise<ReloadReport>;
  restart(name: string): Promise<void>;
}

/** How long a tool run for the user (runTool) may take. */
const USER_TOOL_TIMEOUT_MS = 30_000;

/** The io layer: unprompted delivery, the inbox, approvals. */
export interface IoHost {
  /** Unprompted delivery through the output channels (daemon/agent-parts.ts). */
  send(channel: string, text: string, kind: string, fallback: boolean): Promise<SendResult>;
  inbox: Inbox;
  approvals: ApprovalBroker;
  /** The transcript store (transcripts/store.ts). */
  transcripts: {
    list(query?: TranscriptQuery): { items: TranscriptEntry[]; more: boolean };
    /** An earlier version of a channel's last turn chosen back (transcripts/choose.ts). */
    choose(requestId: string): Promise<{ chosenAt: number }>;
  };
}

/** The daemon's auth module as servers use it; `required` / `verify` (the cli socket's rule) are kept here. */
export type AuthHost = Omit<AuthAPI, "required" | "verify">;

export interface PluginHost {
  agent: Agent;
  auth: AuthHost;
  adapters: AdaptersAPI;
  config: ConfigRegistry;
  dataDir: string;
  logger(scope: string): Logger;
  status(): KernelStatus;
  llm: LlmAPI;
  embeddings: EmbeddingRegistry;
  /** Read on every call, so it may be set after the plugins started; absent = memory is not running. */
  memory?: MemoryHost;
  /** Read on every call: set once the registry exists; absent = plugins cannot be managed. */
  plugins?: PluginManagerHost;
  /** Read on every call: the knowledge base opens after the plugins start; absent until then. */
  knowledge?: KnowledgeAPI;
  /** Where `onForget` handlers are kept for the daemon's forget to ask. */
  forgetHooks: ForgetHooks;
  io: IoHost;
}

export interface PluginBinding {
  sdk: PluginSDK;
  /** What the plugin may still register; the bridge counts remote stage handlers against it too. */
  readonly quota: RegistrationQuota;
  /** What the plugin last passed to `setAutoRestart`; true until it says otherwise. */
  readonly autoRestart: boolean;
  /**
   * Revokes the SDK (every later call throws PluginStoppedError) and removes every tool, stage handler,
   * output channel, embedding provider and subscription the plugin registered. Idempotent.
   * `closeStages`: a critical plugin that went down: its stage handlers are not removed but closed with
   * this reason (StageHost.closeFor), so the stages refuse instead of letting turns through unguarded.
   */
  detach(opts?: { closeStages?: string }): void;
}

export function createPluginSDK(name: string, host: PluginHost, grant: Grant): PluginBinding {
  const { agent, config } = host;
  const unsubscribers = new Set<() => void>();
  const embedders: string[] = [];
  /** Channels this plugin reported interactive clients on: they have none once it is gone. */
  const clientChannels = new Set<string>();
  let userCalls = 0;
  const dataDir = join(host.dataDir, "plugin_data", name);
  mkdirSync(dataDir, { recursive: true });
  const settings = config.pluginSettings(name);
  const log = host.logger(name);
  let autoRestart = true;
  const quota = new RegistrationQuota(name, grant.maxTools);
  agent.stages.allowAnyToolCalls(name, grant.capabilities.includes(ANY_TOOL_CALLS));
  const plugins = (): PluginManagerHost => {
    if (host.plugins) return host.plugins;
    throw new HomeAgentError({
      code: "plugin_mgr_unavailable",
      message: "plugin management is not available yet: the plugin registry has not started",
    });
  };
  const knowledge = (): KnowledgeAPI => {
    if (host.knowledge) return host.knowledge;
    throw new HomeAgentError({
      code: "knowledge_unavailable",
      message: "the knowledge base is not open yet (it opens after the plugins start); try again in a moment",
    });
  };
  const memory = (): MemoryHost => {
    if (host.memory) return host.memory;
    throw new HomeAgentError({
      code: "memory_unavailable",
      message: "memory is not available: it has not started or memory.db failed to open; see the daemon log",
    });
  };

  /** The inbox and client counts of a channel are its owner's business only. */
  const ownChannel = (channel: string): string => {
    if (agent.outputs.get(channel)?.owner === name) return channel;
    throw new HomeAgentError({
      code: "channel_not_found",
      message: `plugin "${name}" has no output channel "${channel}": register it before reading its inbox`,
    });
  };

  const raw: PluginSDK = {
    pluginName: name,
    dataDir,
    daemonDataDir: host.dataDir,
    // Spelled out so the gate wraps exactly these four, whatever shape the host's logger has.
    log: {
      debug: (msg) => log.debug(msg),
      info: (msg) => log.info(msg),
      warn: (msg) => log.warn(msg),
      error: (msg) => log.error(msg),
    },
    registerTool: (def, handler) => {
      quota.checkTool(def);
      quota.take("tools", () => agent.tools.register(name, def, handler));
    },
    unregisterTool: (tool) => {
      const had = agent.tools.unregister(name, tool);
      if (had) quota.release("tools");
      return had;
    },
    registerStage: (stage, handler, scope) => {
      quota.take("stageHandlers", () => agent.stages.register(name, stage, handler, scope));
    },
    registerOutputChannel: (channel, caps, description, handler, opts) => {
      checkChannelClaim("output", channel, name, grant.builtin);
      quota.checkDescription(`output channel "${channel}" description`, description);
      quota.checkDescription(`output channel "${channel}" help`, opts?.help);
      quota.checkDescription(`output channel "${channel}" types`, opts?.types?.join(","));
      quota.take("outputChannels", () => agent.outputs.register(name, channel, caps, description, handler, opts));
    },
    registerInputChannel: (channel, opts) => {
      checkChannelClaim("input", channel, name, grant.builtin);
      quota.take("inputChannels", () => agent.inputs.register(name, channel, opts));
    },
    onForget: (handler) => {
      if (typeof handler !== "function") {
        throw new HomeAgentError({ code: "invalid_argument", message: "onForget takes a handler function" });
      }
      host.forgetHooks.set(name, handler);
    },
    registerEmbeddingProvider: (provider, factory) => {
      host.embeddings.register(provider, factory);
      embedders.push(provider);
    },
    subscribe: (type, handler) => {
      const off = agent.bus.subscribe(type, handler);
      unsubscribers.add(off);
      return () => {
        off();
        unsubscribers.delete(off);
      };
    },
    publish: (type, payload) => agent.bus.publish(type, name, payload),
    injectInput: (source, channel, text, opts) => {
      checkInjectClaim(source, channel, name, grant.builtin);
      return agent.injectInput(source, channel, text, opts);
    },
    // Async, so a refusal rejects, as the agent's own refusals of an input do.
    injectInputSync: async (source, channel, text, opts) => {
      checkInjectClaim(source, channel, name, grant.builtin);
      return agent.injectInputSync(source, channel, text, opts);
    },
    injectInterrupt: (source, channel, text) => {
      checkInjectClaim(source, channel, name, grant.builtin);
      agent.injectInterrupt(source, channel, text);
    },
    send: async (channel, text, opts) => {
      if (typeof channel !== "string" || typeof text !== "string" || !text.trim()) {
        throw new HomeAgentError({ code: "invalid_argument", message: "send takes a channel name and some text" });
      }
      if (text.length > INBOX_MAX_TEXT_CHARS) {
        throw new HomeAgentError({
          code: "too_large",
          message: `an unprompted message is at most ${INBOX_MAX_TEXT_CHARS} characters (this one has ${text.length})`,
        });
      }
      const kind = typeof opts?.kind === "string" && opts.kind.trim() ? opts.kind.trim() : "notice";
      return host.io.send(channel, text, kind, opts?.fallback === true);
    },
    approvals: {
      pending: () => host.io.approvals.pending(),
      answer: (id, choice, by) => host.io.approvals.answer(id, choice, by),
      remembered: () => host.io.approvals.remembered(),
      revoke: (id) => host.io.approvals.revoke(id),
      log: (limit) => host.io.approvals.log(limit),
      setClients: (channel, count) => {
        host.io.approvals.setClients(ownChannel(channel), count);
        clientChannels.add(channel);
      },
    },
    ask: async (request) => host.io.approvals.ask(name, request),
    selfTask: async (text, request) => agent.injectSelf(text, selfTaskOptions(request)),
    runTool: async (tool, args = {}) => {
      const n = ++userCalls;
      const outcome = await agent.tools.execute(
        { id: `user_${n}`, name: tool, arguments: args },
        {
          requestId: `user_${name}_${n}`,
          source: name,
          channel: name,
          signal: AbortSignal.timeout(USER_TOOL_TIMEOUT_MS),
        },
      );
      if (outcome.status === "ok") return outcome.content;
      throw new HomeAgentError({
        code: outcome.status === "unknown_tool" ? "not_found" : "tool_failed",
        message: outcome.content,
      });
    },
    inbox: {
      count: (channel) => host.io.inbox.count(ownChannel(channel)),
      peek: (channel, limit) => host.io.inbox.peek(ownChannel(channel), limit),
      take: (channel, limit) => host.io.inbox.take(ownChannel(channel), limit),
      remove: (channel, ids) => {
        if (!Array.isArray(ids) || ids.some((id) => !Number.isInteger(id))) {
          throw new HomeAgentError({ code: "invalid_argument", message: "inbox.remove takes a list of message ids" });
        }
        return host.io.inbox.remove(ownChannel(channel), ids);
      },
    },
    settings: {
      get: (key) => settings.get(key),
      set: (key, value) => settings.set(key, value),
      list: () => settings.list(),
      define: (defs) => settings.define(defs),
    },
    config: {
      list: (prefix) => config.list(prefix),
      set: (key, value) => {
        if (!grant.builtin || grant.forModel) checkAgentWritable(config, [key]);
        config.set(key, value);
      },
      setMany: (changes) => {
        if (!grant.builtin || grant.forModel) checkAgentWritable(config, Object.keys(changes));
        return config.setMany(changes);
      },
      defs: (prefix) => config.defInfos(prefix),
    },
    auth: {
      required: () => apiKey(config) !== "",
      verify: (key) => verifyKey(apiKey(config), key),
      verifyApiKey: (key) => host.auth.verifyApiKey(key),
      login: (user, password, address) => host.auth.login(user, password, address),
      session: (id) => host.auth.session(id),
      verifyCsrf: (id, token) => host.auth.verifyCsrf(id, token),
      logout: (id) => host.auth.logout(id),
      credentialsFile: () => host.auth.credentialsFile(),
    },
    kernel: {
      status: () => host.status(),
      toolNames: () => agent.tools.names(),
      tools: () => agent.tools.infos(),
      context: () => agent.lastContext(),
      preview: (query) => agent.previewContext(query),
    },
    llm: {
      sources: () => host.llm.sources(),
      use: (source) => host.llm.use(source),
      test: (source, opts) => host.llm.test(source, opts),
    },
    memory: {
      recall: async (query, opts) => memory().memory.recall(query, opts),
      search: async (query, opts) => memory().memory.search(query, opts),
      list: async (opts) => memory().memory.list(opts),
      timeline: async () => memory().memory.timeline(),
      stats: async () => memory().memory.stats(),
      check: async (opts) => memory().memory.check(opts),
      graph: async (opts) => memory().memory.graph(opts),
      history: async (opts) => memory().memory.history(opts),
      commit: async (triples, opts) => memory().memory.commit(triples, opts),
      editFact: async (id, change) => memory().memory.editFact(id, change),
      deleteFact: async (id) => memory().memory.deleteFact(id),
      runLoop: async (loop) => memory().memory.runLoop(loop),
      forget: async (query, opts) => memory().memory.forget(query, opts),
    },
    transcripts: {
      list: async (query) => host.io.transcripts.list(query),
      choose: (requestId) => host.io.transcripts.choose(requestId),
    },
    docMemory: {
      query: async (q, topK) => memory().docMemory.query(q, topK),
      get: async (id) => memory().docMemory.get(id),
      list: async (opts) => memory().docMemory.list(opts),
    },
    social: {
      person: async (person) => memory().social.person(person),
      network: async (person, depth) => memory().social.network(person, depth),
    },
    pluginMgr: {
      list: () => plugins().list(),
      enable: async (target) => plugins().enable(target),
      disable: async (target) => {
        // Its own stop() would wait for this very call to finish.
        if (target === name) {
          throw new HomeAgentError({
            code: "plugin_self_disable",
            message: `plugin "${name}" cannot disable itself; disable it from another client (e.g. waiter's /plugins disable ${name})`,
          });
        }
        await plugins().disable(target, name);
      },
      reload: async (target) => plugins().reload(target),
      restart: async (target) => {
        // Like disable: its own stop() would wait for this very call to finish.
        if (target === name) {
          throw new HomeAgentError({
            code: "plugin_self_restart",
            message: `plugin "${name}" cannot restart itself; restart it from another client (e.g. waiter's /plugins restart ${name})`,
          });
        }
        await plugins().restart(target);
      },
    },
    knowledge: {
      tree: async () => knowledge().tree(),
      get: async (path) => knowledge().get(path),
      put: async (path, content) => knowledge().put(path, content),
      delete: async (path) => knowledge().delete(path),
      search: async (query, limit) => knowledge().search(query, limit),
    },
    adapters: {
      list: () => host.adapters.list(),
      get: (adapter) => host.adapters.get(adapter),
      put: (adapter, code) => host.adapters.put(adapter, code),
      delete: (adapter) => host.adapters.delete(adapter),
    },
    setAutoRestart: (on) => {
      if (typeof on !== "boolean") {
        throw new HomeAgentError({ code: "invalid_argument", message: "setAutoRestart takes true or false" });
      }
      autoRestart = on;
    },
  };

  let revoked = false;
  const gate = (member: SdkMember) => {
    if (revoked) throw new PluginStoppedError(name);
    checkAllowed(name, grant, member);
  };

  return {
    sdk: gated(raw, gate),
    quota,
    get autoRestart() {
      return autoRestart;
    },
    detach: (opts = {}) => {
      revoked = true;
      for (const off of unsubscribers) off();
      unsubscribers.clear();
      agent.tools.unregisterPlugin(name);
      if (opts.closeStages === undefined) agent.stages.unregisterPlugin(name);
      else agent.stages.closeFor(name, opts.closeStages);
      agent.stages.allowAnyToolCalls(name, false);
      agent.outputs.unregisterPlugin(name);
      agent.inputs.unregisterPlugin(name);
      for (const provider of embedders.splice(0)) host.embeddings.unregister(provider);
      host.forgetHooks.remove(name);
      for (const channel of clientChannels) host.io.approvals.setClients(channel, 0);
    },
  };
}

/** A copy of `raw` whose every method, nested ones included, calls `gate` with its member path first. */
const MAX_SELF_TASK_TOOLS = 64;
const DEFAULT_SELF_TASK_MS = 120_000;
const MAX_SELF_TASK_MS = 3_600_000;

/** A plugin's self-task request as the kernel runs it: allowlist, tool rounds and deadline checked. */
function selfTaskOptions(request: SelfTaskRequest): SelfTaskOptions {
  const { tools, maxToolTurns, timeoutMs = DEFAULT_SELF_TASK_MS } = request ?? ({} as SelfTaskRequest);
  const refuse = (message: string) => new HomeAgentError({ code: "invalid_argument", message });
  if (!Array.isArray(tools) || tools.length > MAX_SELF_TASK_TOOLS || tools.some((t) => typeof t !== "string")) {
    throw refuse(`selfTask: tools is a list of at most ${MAX_SELF_TASK_TOOLS} tool names`);
  }
  if (maxToolTurns !== undefined && !(Number.isInteger(maxToolTurns) && maxToolTurns >= 1)) {
    throw refuse("selfTask: maxToolTurns is a whole number of at least 1");
  }
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 1 && timeoutMs <= MAX_SELF_TASK_MS)) {
    throw refuse(`selfTask: timeoutMs is from 1 to ${MAX_SELF_TASK_MS}`);
  }
  return {
    tools: [...tools],
    ...(maxToolTurns !== undefined ? { maxToolTurns } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  };
}

function gated(raw: PluginSDK, gate: (member: SdkMember) => void): PluginSDK {
  const wrap = (member: string, value: unknown): unknown => {
    if (typeof value === "function") {
      return (...args: unknown[]) => {
        gate(member as SdkMember);
        return value(...args);
      };
    }
    if (value !== null && typeof value === "object") {
      const entries = Object.entries(value).map(([key, inner]) => [key, wrap(`${member}.${key}`, inner)]);
      return Object.freeze(Object.fromEntries(entries));
    }
    return value;
  };
  const entries = Object.entries(raw).map(([key, value]) => [key, wrap(key, value)]);
  return Object.freeze(Object.fromEntries(entries)) as PluginSDK;
}

function apiKey(config: ConfigRegistry): string {
  return config.get("core.daemon.api_key") ?? "";
}

/** Constant-time comparison, so the key cannot be guessed byte by byte from response times. */
function verifyKey(expected: string, given: string): boolean {
  if (!expected) return true;
  const a = createHash("sha256").update(expected).digest();
  const b = createHash("sha256").update(given).digest();
  return timingSafeEqual(a, b);
}

/**
 * A plugin that is not built in changes only what a model could (ConfigDef `agentWritable`): the rest —
 * permissions, where data goes, who the agent is — is the user's, whatever capabilities the plugin holds.
 */
function checkAgentWritable(config: ConfigRegistry, keys: readonly string[]): void {
  const userOnly = keys.filter((key) => config.def(key)?.agentWritable !== true);
  if (userOnly.length === 0) return;
  throw new HomeAgentError({
    code: "settings_refused",
    // A key as a message repeats it: a model may send one of any length.
    message: `${userOnly.map((k) => cutText(k, 120)).join(", ")}: only the user can change this, in Settings or with /settings`,
  });
}
