/**
 * `@homeagent/sdk/test`: an in-memory PluginSDK for a plugin's unit tests. It records what the plugin
 * registers, subscribes to, publishes and injects; lets the test drive it (bus events, tool calls, replies
 * to injected input); and keeps settings and configuration in memory, so a plugin can be tested without a
 * daemon. Memory calls answer from what the test passes (`memory`, `docMemory`, `social`); any other
 * memory call rejects with code "memory_unavailable", as the daemon's would while memory is not running.
 * `pluginMgr` manages the plugin list the test passes (`plugins`): enable and disable change their state.
 * It does not check capabilities or validate setting values: the daemon does that. This file records and
 * drives; mock/types.ts holds the public types, mock/daemon-state.ts the settings, config and plugin list,
 * mock/given.ts the services answered from the test's functions.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SdkError } from "./errors.js";
import type {
  AgentEvent,
  ForgetHandler,
  InjectOptions,
  InputReply,
  KernelStatus,
  Logger,
  ToolContext,
} from "./index.js";
import { daemonState } from "./mock/daemon-state.js";
import { given, givenApis } from "./mock/given.js";
import { mockIo } from "./mock/io.js";
import type { MockInput, MockResponder, MockSDK, MockSDKOptions, MockSent } from "./mock/types.js";

export type { MockInput, MockResponder, MockSDK, MockSDKOptions, MockSent };

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
  let nextId = 0;
  let eventSeq = 0;

  const reply = async (input: Omit<MockInput, "reply">): Promise<InputReply> => {
    // As the daemon drops a queued input whose signal fired: answered cancelled, never run.
    if (input.opts?.signal?.aborted) {
      return { requestId: input.requestId, content: "", shortCircuited: false, error: "the input was cancelled" };
    }
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
    sent: [],
    asked: [],
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
    unregisterTool: (name) => mock.tools.delete(name),
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

    ...daemonState(opts, name),
    ...mockIo(opts, {
      get channels() {
        return mock.channels;
      },
      get tools() {
        return mock.tools;
      },
      get sent() {
        return mock.sent;
      },
      get asked() {
        return mock.asked;
      },
    }),
    auth: {
      required: () => mock.apiKey !== "",
      verify: (key) => mock.apiKey === "" || key === mock.apiKey,
      verifyApiKey: (key) => given(opts.auth, "auth", "verifyApiKey")(key),
      login: (user, password, address) => given(opts.auth, "auth", "login")(user, password, address),
      session: (id) => given(opts.auth, "auth", "session")(id),
      verifyCsrf: (id, token) => given(opts.auth, "auth", "verifyCsrf")(id, token),
      logout: (id) => given(opts.auth, "auth", "logout")(id),
      credentialsFile: () => given(opts.auth, "auth", "credentialsFile")(),
    },
    kernel: {
      status: () => ({ ...defaultStatus(mock), ...opts.status }),
      toolNames: () => opts.toolNames ?? [...mock.tools.keys()],
      tools: () =>
        opts.tools ??
        [...mock.tools.values()].map(({ def }) => ({
          name: def.name,
          description: def.description,
          parameters: def.parameters,
          owner: mock.pluginName,
          noMemory: def.noMemory === true,
        })),
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
    ...givenApis(opts),
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
