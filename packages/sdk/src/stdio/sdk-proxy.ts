/**
 * The PluginSDK of a subprocess plugin: the same object a plugin gets in-process, but every member is a
 * `core.<member>` request to the daemon. Functions cannot cross the wire, so registrations keep their
 * handlers here (the daemon calls back with tool.invoke, stage.invoke, … naming them) and send only the
 * data. Own settings are answered from a cache (filled by plugin.init, kept current by the plugin's own
 * writes), so `settings.get` stays synchronous as in-process.
 *
 * Every other member returns the promise of its request, whatever its in-process type: a plugin that awaits
 * its SDK calls runs unchanged in both places. Members typed `void` (injectInterrupt, llm.use, …) need not
 * be awaited: their failure is logged instead of crashing the plugin.
 */
import { type ErrorCode, SdkError } from "../errors.js";
import type {
  EventHandler,
  ForgetHandler,
  InjectOptions,
  OutputHandler,
  PluginSDK,
  SettingDef,
  StageHandler,
  ToolHandler,
} from "../index.js";
import type { RpcPeer } from "../protocol/peer.js";
import { RpcError } from "../protocol/rpc-error.js";
import { SdkCallError, SubprocessUnsupportedError } from "./errors.js";

/** `plugin.init` params. */
export interface InitParams {
  name: string;
  dataDir: string;
  daemonDataDir: string;
  capabilities: string[];
  /** The plugin's own settings by relative key. */
  settings: Record<string, string>;
}

/** What the plugin registered, under the names the daemon's calls use. */
export interface PluginHandlers {
  tools: Map<string, ToolHandler>;
  /** By handlerId. */
  stages: Map<string, StageHandler>;
  outputs: Map<string, OutputHandler>;
  /** By `tool:<name>` or `input:<channel>`. */
  cleaners: Map<string, (text: string) => string>;
  /** By subscription id. */
  subscriptions: Map<string, EventHandler>;
  /** The onForget handler, if the plugin set one. */
  forget?: ForgetHandler;
}

export interface ProxySession {
  sdk: PluginSDK;
  handlers: PluginHandlers;
  /**
   * Waits until the daemon answered every registration sent so far; rejects with the first that failed.
   * Called once, when start() returned: later registrations that fail are logged instead.
   */
  settle(): Promise<void>;
  /** The daemon's `settings.changed`: one of the plugin's own settings was changed (by anyone). */
  settingChanged(key: string, value: string): void;
}

type Args = unknown[];

export function createProxySdk(peer: RpcPeer, init: InitParams): ProxySession {
  const handlers: PluginHandlers = {
    tools: new Map(),
    stages: new Map(),
    outputs: new Map(),
    cleaners: new Map(),
    subscriptions: new Map(),
  };
  let settled = false;
  /** Registrations in flight during start: each resolves with its failure, or undefined. */
  const inFlight: Array<Promise<Error | undefined>> = [];
  let nextHandler = 0;

  const warn = (msg: string) => peer.notify("core.log.warn", [msg]);

  const call = (member: string, args: Args, signal?: AbortSignal): Promise<unknown> =>
    peer.call(`core.${member}`, trimArgs(args), signal ? { signal } : {}).catch((err: unknown) => {
      throw err instanceof RpcError ? new SdkCallError(err) : err;
    });

  /** A member whose in-process type returns a value: the caller awaits the promise. */
  const remote = <F>(member: string): F => ((...args: Args) => call(member, args)) as F;

  /** A member typed `void`: nobody has to await it, so a failure is logged rather than left unhandled. */
  const voidRemote = <F>(member: string): F =>
    ((...args: Args) => {
      const done = call(member, args);
      done.catch((err: unknown) => warn(`${member} failed: ${messageOf(err)}`));
      return done;
    }) as F;

  /**
   * Sends a registration (or another call start() must see through); `undo` drops the local handler when
   * the daemon refuses it. During start the failure fails start; later it is logged.
   */
  const register = (member: string, args: Args, undo: () => void): Promise<unknown> => {
    const done = call(member, args);
    const outcome = done.then(
      () => undefined,
      (err: unknown) => {
        undo();
        if (settled) warn(`${member} failed: ${messageOf(err)}`);
        return err instanceof Error ? err : new SdkError({ code: "rpc_failed", message: String(err), cause: err });
      },
    );
    if (!settled) inFlight.push(outcome);
    return done;
  };

  /** Keeps a handler under `key`; `code` is the refusal of a second one (handler ids are unique by making). */
  const claim = <V>(
    table: Map<string, V>,
    key: string,
    value: V,
    what: string,
    code: ErrorCode = "internal_error",
  ): (() => void) => {
    if (table.has(key)) throw new SdkError({ code, message: `${what} is already registered; register it once` });
    table.set(key, value);
    return () => {
      if (table.get(key) === value) table.delete(key);
    };
  };

  const settings = new Map(Object.entries(init.settings ?? {}));
  const builtinOnly = (member: string) => (): never => {
    throw new SubprocessUnsupportedError(member, "only the built-in clients answer approvals for the user");
  };

  const sdk: PluginSDK = {
    pluginName: init.name,
    dataDir: init.dataDir,
    daemonDataDir: init.daemonDataDir,
    log: {
      debug: (msg) => peer.notify("core.log.debug", [String(msg)]),
      info: (msg) => peer.notify("core.log.info", [String(msg)]),
      warn: (msg) => peer.notify("core.log.warn", [String(msg)]),
      error: (msg) => peer.notify("core.log.error", [String(msg)]),
    },

    registerTool: (def, handler) => {
      const { cleaner, ...data } = def;
      const undoTool = claim(handlers.tools, def.name, handler, `tool "${def.name}"`, "tool_name_taken");
      const undoCleaner = cleaner ? claim(handlers.cleaners, `tool:${def.name}`, cleaner, "cleaner") : () => {};
      register("registerTool", [{ ...data, ...(cleaner ? { cleaner: true } : {}) }], () => {
        undoTool();
        undoCleaner();
      });
    },
    unregisterTool: (name) => {
      const had = handlers.tools.delete(name);
      handlers.cleaners.delete(`tool:${name}`);
      if (had)
        void call("unregisterTool", [name]).catch((err: unknown) => warn(`unregisterTool failed: ${messageOf(err)}`));
      return had;
    },
    registerStage: (stage, handler, scope) => {
      const handlerId = `${stage}#${++nextHandler}`;
      const undo = claim(handlers.stages, handlerId, handler, `stage handler ${handlerId}`);
      register("registerStage", [stage, scope ?? "global", handlerId], undo);
    },
    registerOutputChannel: (name, caps, description, handler, opts) => {
      const undo = claim(handlers.outputs, name, handler, `output channel "${name}"`, "channel_name_taken");
      register("registerOutputChannel", [name, caps, description, opts ?? {}], undo);
    },
    registerInputChannel: (name, opts = {}) => {
      const { cleaner, ...data } = opts;
      const undo = cleaner
        ? claim(handlers.cleaners, `input:${name}`, cleaner, `input channel "${name}"`, "channel_name_taken")
        : () => {};
      register("registerInputChannel", [name, { ...data, ...(cleaner ? { cleaner: true } : {}) }], undo);
    },
    settings: {
      get: (key) => settings.get(key),
      list: () => Object.fromEntries(settings),
      set: (key, value) => {
        const had = settings.has(key);
        const before = settings.get(key);
        settings.set(key, value);
        const done = call("settings.set", [key, value]);
        done.catch((err: unknown) => {
          if (settings.get(key) === value) {
            if (had) settings.set(key, before as string);
            else settings.delete(key);
          }
          warn(`settings.set("${key}") was refused, the old value is kept: ${messageOf(err)}`);
        });
        return done;
      },
      define: (defs: SettingDef[]) => {
        for (const def of defs) if (!settings.has(def.key)) settings.set(def.key, def.default);
        register("settings.define", [defs], () => {});
      },
    },

    onForget: (handler) => {
      const before = handlers.forget;
      handlers.forget = handler;
      register("onForget", [], () => {
        if (handlers.forget === handler) handlers.forget = before;
      });
    },
    registerEmbeddingProvider: () => {
      throw new SubprocessUnsupportedError(
        "registerEmbeddingProvider",
        "an embedding provider must run inside the daemon (an HTTP embedding endpoint can be configured instead)",
      );
    },
    subscribe: (type, handler) => {
      const id = `sub-${++nextHandler}`;
      const undo = claim(handlers.subscriptions, id, handler, `subscription ${id}`);
      register("subscribe", [type, id], undo);
      return () => {
        if (!handlers.subscriptions.delete(id)) return;
        call("unsubscribe", [id]).catch(() => {});
      };
    },
    publish: () => {
      throw new SubprocessUnsupportedError("publish", "only built-in plugins may publish events");
    },

    injectInput: (source, channel, text, opts) =>
      injectCall(call, "injectInput", source, channel, text, opts) as unknown as string,
    injectInputSync: (source, channel, text, opts) =>
      injectCall(call, "injectInputSync", source, channel, text, opts) as ReturnType<PluginSDK["injectInputSync"]>,
    injectInterrupt: voidRemote("injectInterrupt"),
    send: remote("send"),
    approvals: {
      pending: builtinOnly("approvals.pending"),
      answer: builtinOnly("approvals.answer"),
      remembered: builtinOnly("approvals.remembered"),
      revoke: builtinOnly("approvals.revoke"),
      log: builtinOnly("approvals.log"),
      setClients: builtinOnly("approvals.setClients"),
    },
    ask: remote("ask"),
    selfTask: () => {
      throw new SubprocessUnsupportedError("selfTask", "only built-in plugins run the daemon's own LLM turns");
    },
    runTool: () => {
      throw new SubprocessUnsupportedError("runTool", "only the built-in clients run tools for the user");
    },
    inbox: {
      count: remote("inbox.count"),
      peek: remote("inbox.peek"),
      take: remote("inbox.take"),
      remove: remote("inbox.remove"),
    },

    config: {
      list: remote("config.list"),
      set: voidRemote("config.set"),
      setMany: remote("config.setMany"),
      defs: remote("config.defs"),
    },
    auth: {
      required: remote("auth.required"),
      verify: remote("auth.verify"),
      verifyApiKey: remote("auth.verifyApiKey"),
      login: remote("auth.login"),
      session: remote("auth.session"),
      verifyCsrf: remote("auth.verifyCsrf"),
      logout: remote("auth.logout"),
      credentialsFile: remote("auth.credentialsFile"),
    },
    kernel: {
      status: remote("kernel.status"),
      toolNames: remote("kernel.toolNames"),
      tools: remote("kernel.tools"),
      context: remote("kernel.context"),
      preview: remote("kernel.preview"),
    },
    llm: { sources: remote("llm.sources"), use: voidRemote("llm.use"), test: remote("llm.test") },
    memory: {
      recall: remote("memory.recall"),
      search: remote("memory.search"),
      list: remote("memory.list"),
      timeline: remote("memory.timeline"),
      stats: remote("memory.stats"),
      check: remote("memory.check"),
      graph: remote("memory.graph"),
      history: remote("memory.history"),
      commit: remote("memory.commit"),
      editFact: remote("memory.editFact"),
      deleteFact: remote("memory.deleteFact"),
      runLoop: remote("memory.runLoop"),
      forget: remote("memory.forget"),
    },
    transcripts: { list: remote("transcripts.list"), choose: remote("transcripts.choose") },
    docMemory: { query: remote("docMemory.query"), get: remote("docMemory.get"), list: remote("docMemory.list") },
    social: { person: remote("social.person"), network: remote("social.network") },
    pluginMgr: {
      list: remote("pluginMgr.list"),
      enable: remote("pluginMgr.enable"),
      disable: remote("pluginMgr.disable"),
      reload: remote("pluginMgr.reload"),
      restart: remote("pluginMgr.restart"),
    },
    knowledge: {
      tree: remote("knowledge.tree"),
      get: remote("knowledge.get"),
      put: remote("knowledge.put"),
      delete: remote("knowledge.delete"),
      search: remote("knowledge.search"),
    },
    adapters: {
      list: remote("adapters.list"),
      get: remote("adapters.get"),
      put: remote("adapters.put"),
      delete: remote("adapters.delete"),
    },
    setAutoRestart: (on) => register("setAutoRestart", [on], () => {}),
  };

  const settle = async (): Promise<void> => {
    let first: Error | undefined;
    // A registration may be sent while others are answered (e.g. after an await in start()).
    while (inFlight.length > 0) {
      for (const failure of await Promise.all(inFlight.splice(0))) first ??= failure;
    }
    settled = true;
    if (first) throw first;
  };

  return { sdk, handlers, settle, settingChanged: (key, value) => void settings.set(key, value) };
}

/** Injects over the wire: the abort signal becomes `$/cancel`; onQueued cannot cross the process boundary. */
function injectCall(
  call: (member: string, args: Args, signal?: AbortSignal) => Promise<unknown>,
  member: string,
  source: string,
  channel: string,
  text: string,
  opts?: InjectOptions,
): Promise<unknown> {
  if (!opts) return call(member, [source, channel, text]);
  const { signal, onQueued, ...wire } = opts;
  if (onQueued) {
    return Promise.reject(
      new SubprocessUnsupportedError(
        "InjectOptions.onQueued",
        "injectInput returns the request id as soon as it is queued",
      ),
    );
  }
  return call(member, [source, channel, text, wire], signal);
}

/** JSON turns a trailing `undefined` argument into null; the daemon should see it as absent. */
function trimArgs(args: Args): Args {
  let end = args.length;
  while (end > 0 && args[end - 1] === undefined) end--;
  return end === args.length ? args : args.slice(0, end);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
