/**
 * `@homeagent/sdk/test`: an in-memory PluginSDK for a plugin's unit tests. It records what the plugin
 * registers, subscribes to, publishes and injects; lets the test drive it (bus events, tool calls, replies
 * to injected input); and keeps settings and configuration in memory, so a plugin can be tested without a
 * daemon. Memory calls answer from what the test passes (`memory`, `docMemory`, `social`); any other
 * memory call rejects with code "memory_unavailable", as the daemon's would while memory is not running.
 * `pluginMgr` manages the plugin list the test passes (`plugins`): enable and disable change their state.
 * It does not check capabilities or validate setting values: the daemon does that.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SdkError } from "./errors.js";
import type {
  AdaptersAPI,
  AgentEvent,
  AuthAPI,
  ConfigDefInfo,
  ConfigEntry,
  ContextPreview,
  ContextReport,
  DocMemoryAPI,
  EmbeddingFactory,
  EventHandler,
  EventType,
  ForgetHandler,
  InjectOptions,
  InputChannelOptions,
  InputReply,
  KernelStatus,
  KnowledgeAPI,
  LlmAPI,
  LlmSourceStatus,
  Logger,
  MemoryAPI,
  OutputCapability,
  OutputChannelOptions,
  OutputHandler,
  PluginInfo,
  PluginSDK,
  SettingDef,
  SocialAPI,
  Stage,
  StageHandler,
  StageScope,
  ToolContext,
  ToolDef,
  ToolHandler,
} from "./index.js";

/** One injectInput / injectInputSync call. */
export interface MockInput {
  requestId: string;
  source: string;
  channel: string;
  text: string;
  opts?: InjectOptions;
  /** true for injectInputSync. */
  sync: boolean;
  /** The reply the responder gave; for injectInput a failure becomes a reply with `error`. */
  reply: Promise<InputReply>;
}

/**
 * Answers an injected input, as the agent would. A string is the reply's content; an object is merged
 * into the reply. Throwing makes injectInputSync reject. The default echoes the text.
 */
export type MockResponder = (
  input: Omit<MockInput, "reply">,
  sdk: MockSDK,
) => string | Partial<InputReply> | Promise<string | Partial<InputReply>>;

export interface MockSDKOptions {
  /** Default "test-plugin". */
  pluginName?: string;
  /** Default: a temp dir made on first use and removed when the process exits. */
  daemonDataDir?: string;
  /** Default `<daemonDataDir>/plugin_data/<pluginName>`; created on first use either way. */
  dataDir?: string;
  respond?: MockResponder;
  /** The plugin's own settings (relative keys). */
  settings?: Record<string, string>;
  /** Daemon-wide entries for `config.list` / `config.set` / `config.setMany`; a key not listed is refused. */
  config?: Array<Pick<ConfigEntry, "key" | "value"> & Partial<ConfigEntry>>;
  /** Overrides of the default `kernel.status()`. */
  status?: Partial<KernelStatus>;
  /** What `kernel.toolNames()` returns; default the tools the plugin registered. */
  toolNames?: string[];
  llmSources?: LlmSourceStatus[];
  /** The daemon's API key; "" (default) = none required. */
  apiKey?: string;
  /** What `kernel.context()` returns; default null (no request yet). */
  context?: ContextReport | null;
  /** Answers of the memory APIs; a method not given rejects with code "memory_unavailable". */
  memory?: Partial<MemoryAPI>;
  docMemory?: Partial<DocMemoryAPI>;
  social?: Partial<SocialAPI>;
  /** What `pluginMgr.list()` starts with; default this plugin alone, running. */
  plugins?: PluginInfo[];
  /**
   * Answers of `auth` beyond `required` / `verify` (which follow `apiKey`); a method not given throws
   * (or rejects) with code "unavailable".
   */
  auth?: Partial<Omit<AuthAPI, "required" | "verify">>;
  knowledge?: Partial<KnowledgeAPI>;
  adapters?: Partial<AdaptersAPI>;
  /** What `llm.test` answers; default: it rejects with code "unavailable". */
  llmTest?: LlmAPI["test"];
  /** What `kernel.preview` answers; default: it rejects with code "unavailable". */
  preview?: (query: string) => Promise<ContextPreview>;
  /** Definitions for `config.defs`; default none. */
  configDefs?: ConfigDefInfo[];
}

export interface MockSDK extends PluginSDK {
  readonly tools: Map<string, { def: ToolDef; handler: ToolHandler }>;
  readonly stages: Array<{ stage: Stage; handler: StageHandler; scope: StageScope }>;
  readonly channels: Map<
    string,
    { caps: readonly OutputCapability[]; description: string; handler: OutputHandler; opts?: OutputChannelOptions }
  >;
  readonly inputChannels: Map<string, InputChannelOptions>;
  readonly embeddingProviders: Map<string, EmbeddingFactory>;
  /** The handler the plugin gave `onForget`, if any: call it as the daemon's forget would. */
  readonly forgetHandler: ForgetHandler | undefined;
  /** Live subscriptions: an unsubscribed handler is removed. */
  readonly subscriptions: Array<{ type: EventType | "*"; handler: EventHandler }>;
  readonly published: Array<{ type: EventType; payload: Record<string, unknown> }>;
  readonly inputs: MockInput[];
  readonly interrupts: Array<{ source: string; channel: string; text: string }>;
  readonly logs: Array<{ level: keyof Logger; msg: string }>;
  /** Checked by `auth`; change it at any time. "" = no key required. */
  apiKey: string;
  /** Chosen by `llm.use`; "" = priority order. */
  preferredSource: string;
  /** What the plugin last passed to `setAutoRestart`; default true. */
  autoRestart: boolean;
  /** Delivers an event to the plugin's subscribers, as the daemon's bus would. */
  emit(type: EventType, payload: Record<string, unknown>, source?: string): void;
  /** Calls a tool the plugin registered; throws if there is none by that name. */
  callTool(name: string, args?: Record<string, unknown>, ctx?: Partial<ToolContext>): Promise<unknown>;
}

const tempRoots: string[] = [];
let cleanupRegistered = false;

function tempRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "homeagent-mock-"));
  tempRoots.push(dir);
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    process.once("exit", () => {
      for (const root of tempRoots) rmSync(root, { recursive: true, force: true });
    });
  }
  return dir;
}

const echo: MockResponder = (input) => input.text;

export function createMockSDK(opts: MockSDKOptions = {}): MockSDK {
  const name = opts.pluginName ?? "test-plugin";
  let root: string | undefined;
  const daemonDir = () => {
    root ??= opts.daemonDataDir ?? tempRoot();
    return root;
  };
  const respond = opts.respond ?? echo;
  const ownSettings = new Map(Object.entries(opts.settings ?? {}));
  const defs = new Map<string, SettingDef>();
  const config: ConfigEntry[] = (opts.config ?? []).map((e) => ({
    type: "string",
    description: "",
    category: e.key.split(".")[1] ?? "",
    ...e,
  }));
  let nextId = 0;
  let eventSeq = 0;
  const plugins: PluginInfo[] = (opts.plugins ?? [pluginInfo(name)]).map((p) => ({ ...p }));
  const plugin = (target: string): PluginInfo => {
    const found = plugins.find((p) => p.name === target);
    if (!found) {
      throw new SdkError({ code: "plugin_not_found", message: `no plugin named "${target}"; pass it in \`plugins\`` });
    }
    return found;
  };

  const reply = async (input: Omit<MockInput, "reply">): Promise<InputReply> => {
    const answer = await respond(input, mock);
    const fields = typeof answer === "string" ? { content: answer } : answer;
    return { requestId: input.requestId, content: "", shortCircuited: false, ...fields };
  };

  const inject = (source: string, channel: string, text: string, sync: boolean, injectOpts?: InjectOptions) => {
    const input = { requestId: `req-${++nextId}`, source, channel, text, opts: injectOpts, sync };
    injectOpts?.onQueued?.(input.requestId);
    const replied = Promise.resolve().then(() => reply(input));
    const recorded: MockInput = {
      ...input,
      reply: sync ? replied : replied.catch((err: unknown) => failed(input.requestId, err)),
    };
    mock.inputs.push(recorded);
    return recorded;
  };

  const log = (level: keyof Logger) => (msg: string) => void mock.logs.push({ level, msg });

  let forgetHandler: ForgetHandler | undefined;
  const mock: MockSDK = {
    pluginName: name,
    get daemonDataDir() {
      return daemonDir();
    },
    get dataDir() {
      const dir = opts.dataDir ?? join(daemonDir(), "plugin_data", name);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    log: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },

    tools: new Map(),
    stages: [],
    channels: new Map(),
    inputChannels: new Map(),
    embeddingProviders: new Map(),
    get forgetHandler() {
      return forgetHandler;
    },
    subscriptions: [],
    published: [],
    inputs: [],
    interrupts: [],
    logs: [],
    apiKey: opts.apiKey ?? "",
    preferredSource: "",
    autoRestart: true,

    registerTool: (def, handler) => {
      if (mock.tools.has(def.name)) {
        throw new SdkError({ code: "tool_name_taken", message: `tool "${def.name}" is already registered` });
      }
      mock.tools.set(def.name, { def, handler });
    },
    registerStage: (stage, handler, scope = "global") => void mock.stages.push({ stage, handler, scope }),
    registerOutputChannel: (channel, caps, description, handler, channelOpts) => {
      if (mock.channels.has(channel)) {
        throw new SdkError({
          code: "channel_name_taken",
          message: `output channel "${channel}" is already registered`,
        });
      }
      mock.channels.set(channel, { caps, description, handler, opts: channelOpts });
    },
    registerInputChannel: (channel, channelOpts = {}) => {
      if (mock.inputChannels.has(channel)) {
        throw new SdkError({ code: "channel_name_taken", message: `input channel "${channel}" is already registered` });
      }
      mock.inputChannels.set(channel, channelOpts);
    },
    onForget: (handler) => {
      forgetHandler = handler;
    },
    registerEmbeddingProvider: (provider, factory) => {
      if (mock.embeddingProviders.has(provider)) {
        throw new SdkError({
          code: "embedding_provider_name",
          message: `embedding provider "${provider}" is already registered`,
        });
      }
      mock.embeddingProviders.set(provider, factory);
    },
    subscribe: (type, handler) => {
      const sub = { type, handler };
      mock.subscriptions.push(sub);
      return () => {
        const at = mock.subscriptions.indexOf(sub);
        if (at !== -1) mock.subscriptions.splice(at, 1);
      };
    },
    publish: (type, payload) => {
      mock.published.push({ type, payload });
      mock.emit(type, payload, name);
    },
    emit: (type, payload, source = "kernel") => {
      const event: AgentEvent = { seq: ++eventSeq, type, source, payload, timestamp: Date.now() };
      for (const sub of [...mock.subscriptions]) {
        if (sub.type === "*" || sub.type === type) sub.handler(event);
      }
    },

    injectInput: (source, channel, text, injectOpts) => {
      const input = inject(source, channel, text, false, injectOpts);
      const target = mock.channels.get(injectOpts?.outputChannel ?? channel);
      if (target) {
        input.reply
          .then((r) => target.handler({ payload: r.content, meta: {}, type: "text", requestId: r.requestId }))
          .catch((err: unknown) => mock.logs.push({ level: "error", msg: `output channel failed: ${String(err)}` }));
      }
      return input.requestId;
    },
    injectInputSync: (source, channel, text, injectOpts) => inject(source, channel, text, true, injectOpts).reply,
    injectInterrupt: (source, channel, text) => void mock.interrupts.push({ source, channel, text }),

    settings: {
      get: (key) => ownSettings.get(key) ?? defs.get(key)?.default,
      set: (key, value) => void ownSettings.set(key, value),
      list: () => ({
        ...Object.fromEntries([...defs.values()].map((d) => [d.key, d.default])),
        ...Object.fromEntries(ownSettings),
      }),
      define: (list) => {
        for (const def of list) defs.set(def.key, def);
      },
    },
    config: {
      list: (prefix) => config.filter((e) => !prefix || e.key.startsWith(prefix)).map((e) => ({ ...e })),
      set: (key, value) => {
        const entry = config.find((e) => e.key === key);
        if (!entry) {
          throw new SdkError({ code: "config_unknown_key", message: `unknown config key ${key}` });
        }
        entry.value = value;
      },
      setMany: (changes) => {
        const unknown = Object.keys(changes).filter((key) => !config.some((e) => e.key === key));
        if (unknown.length > 0) {
          return { refused: Object.fromEntries(unknown.map((key) => [key, `unknown config key ${key}`])) };
        }
        for (const e of config) if (Object.hasOwn(changes, e.key)) e.value = changes[e.key];
        return { refused: {} };
      },
      defs: (prefix) => (opts.configDefs ?? []).filter((d) => !prefix || d.key.startsWith(prefix)),
    },
    auth: {
      required: () => mock.apiKey !== "",
      verify: (key) => mock.apiKey === "" || key === mock.apiKey,
      verifyApiKey: (key) => given(opts.auth, "auth", "verifyApiKey")(key),
      login: (user, password, address) => given(opts.auth, "auth", "login")(user, password, address),
      session: (id) => given(opts.auth, "auth", "session")(id),
      verifyCsrf: (id, token) => given(opts.auth, "auth", "verifyCsrf")(id, token),
      logout: (id) => given(opts.auth, "auth", "logout")(id),
    },
    kernel: {
      status: () => ({ ...defaultStatus(mock), ...opts.status }),
      toolNames: () => opts.toolNames ?? [...mock.tools.keys()],
      context: () => opts.context ?? null,
      preview: async (query) => given(opts, "kernel", "preview")(query),
    },
    llm: {
      sources: () => (opts.llmSources ?? []).map((s) => ({ ...s, preferred: s.name === mock.preferredSource })),
      use: (source) => {
        if (source && !(opts.llmSources ?? []).some((s) => s.name === source)) {
          throw new SdkError({
            code: "llm_unknown_source",
            message: `no LLM source named "${source}"; pass it in \`llmSources\``,
          });
        }
        mock.preferredSource = source;
      },
      test: async (source, o) => given(opts, "llm", "llmTest")(source, o),
    },
    memory: {
      recall: (query, o) => answer(opts.memory, "memory", "recall")(query, o),
      search: (query, o) => answer(opts.memory, "memory", "search")(query, o),
      list: (o) => answer(opts.memory, "memory", "list")(o),
      timeline: () => answer(opts.memory, "memory", "timeline")(),
      stats: () => answer(opts.memory, "memory", "stats")(),
      graph: (o) => answer(opts.memory, "memory", "graph")(o),
      history: (o) => answer(opts.memory, "memory", "history")(o),
      commit: (triples, o) => answer(opts.memory, "memory", "commit")(triples, o),
      editFact: (id, change) => answer(opts.memory, "memory", "editFact")(id, change),
      deleteFact: (id) => answer(opts.memory, "memory", "deleteFact")(id),
      runLoop: (loop) => answer(opts.memory, "memory", "runLoop")(loop),
      forget: (query, o) => answer(opts.memory, "memory", "forget")(query, o),
    },
    docMemory: {
      query: (q, topK) => answer(opts.docMemory, "docMemory", "query")(q, topK),
      get: (id) => answer(opts.docMemory, "docMemory", "get")(id),
      list: (o) => answer(opts.docMemory, "docMemory", "list")(o),
    },
    social: {
      person: (person) => answer(opts.social, "social", "person")(person),
      network: (person, depth) => answer(opts.social, "social", "network")(person, depth),
    },
    pluginMgr: {
      list: () => plugins.map((p) => ({ ...p })),
      enable: async (target) => {
        plugin(target).state = "running";
      },
      disable: async (target) => {
        plugin(target).state = "disabled";
      },
      reload: async (target) => {
        const external = plugins.filter((p) => p.kind !== "builtin" && (target === undefined || p.name === target));
        if (target !== undefined && external.length === 0) {
          throw new SdkError({ code: "plugin_not_found", message: `no external plugin named "${target}"` });
        }
        return { reloaded: external.map((p) => p.name), unchanged: [], added: [], removed: [], failed: [] };
      },
    },
    knowledge: {
      tree: () => given(opts.knowledge, "knowledge", "tree")(),
      get: (path) => given(opts.knowledge, "knowledge", "get")(path),
      put: (path, content) => given(opts.knowledge, "knowledge", "put")(path, content),
      delete: (path) => given(opts.knowledge, "knowledge", "delete")(path),
      search: (query, limit) => given(opts.knowledge, "knowledge", "search")(query, limit),
    },
    adapters: {
      list: () => given(opts.adapters, "adapters", "list")(),
      get: (adapter) => given(opts.adapters, "adapters", "get")(adapter),
      put: (adapter, code) => given(opts.adapters, "adapters", "put")(adapter, code),
      delete: (adapter) => given(opts.adapters, "adapters", "delete")(adapter),
    },
    setAutoRestart: (on) => {
      mock.autoRestart = on;
    },

    callTool: async (tool, args = {}, ctx = {}) => {
      const found = mock.tools.get(tool);
      if (!found) {
        throw new SdkError({
          code: "not_found",
          message: `no tool named "${tool}" is registered (registered: ${[...mock.tools.keys()]}); start the plugin first`,
        });
      }
      const toolCtx: ToolContext = {
        requestId: "test",
        source: "test",
        channel: "test",
        signal: new AbortController().signal,
        ...ctx,
      };
      return found.handler(args, toolCtx);
    },
  };
  return mock;
}

/** The test's answer for one memory method, or a rejection saying the mock was given none. */
function answer<T extends object, K extends keyof T>(
  api: Partial<T> | undefined,
  group: string,
  method: K,
): T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<R> : never {
  const given = api?.[method] as ((...args: unknown[]) => unknown) | undefined;
  const call = async (...args: unknown[]) => {
    if (!given) {
      throw new SdkError({
        code: "memory_unavailable",
        message: `memory is not available: the mock SDK was given no ${group}.${String(method)}`,
      });
    }
    return given(...args);
  };
  return call as never;
}

/** The test's function for one member, or one that throws (code "unavailable") saying the mock was given none. */
function given<T extends object, K extends keyof T>(api: T | undefined, group: string, member: K): NonNullable<T[K]> {
  const fn = api?.[member];
  if (typeof fn === "function") return fn as NonNullable<T[K]>;
  return (() => {
    throw new SdkError({ code: "unavailable", message: `the mock SDK was given no ${group}.${String(member)}` });
  }) as NonNullable<T[K]>;
}

function pluginInfo(name: string): PluginInfo {
  return {
    name,
    kind: "js",
    state: "running",
    health: "ok",
    capabilities: ["core"],
    critical: false,
    crashes: 0,
    restarts: 0,
  };
}

function failed(requestId: string, err: unknown): InputReply {
  return { requestId, content: "", shortCircuited: false, error: err instanceof Error ? err.message : String(err) };
}

function defaultStatus(mock: MockSDK): KernelStatus {
  return {
    version: "0.0.0-test",
    uptimeS: 0,
    busy: false,
    queued: 0,
    processed: mock.inputs.length,
    tools: mock.tools.size,
    outputChannels: [...mock.channels.keys()],
    llm: { sources: mock.llm.sources() },
    plugins: mock.pluginMgr.list(),
    embedding: { active: "lexical", fingerprint: "lexical:test", dimension: 0, degraded: [] },
    events: { published: 0, subscribers: mock.subscriptions.length },
    configProblems: [],
    usage: { day: new Date().toISOString().slice(0, 10), timeZone: "UTC", hour: new Date().getUTCHours(), sources: [] },
  };
}
