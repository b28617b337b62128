/**
 * Assembles the daemon: config center, logging, LLM sources, memory, retrieval, kernel, plugins. `stop()` takes it
 * down in reverse order; every piece is closed even if an earlier one fails to.
 */
import type { KernelStatus, Logger } from "@homeagent/sdk";
import { Auth } from "../auth/auth.js";
import { builtinPlugins } from "../builtins/index.js";
import { ConfigRegistry } from "../config/registry.js";
import { isSecret } from "../config/validate.js";
import { EmbeddingRegistry } from "../embedding/spi.js";
import { tokenize } from "../embedding/text.js";
import { registerBuiltinEmbedders } from "../embedding/tiers.js";
import { ApprovalStore } from "../io/approval-store.js";
import { ApprovalBroker } from "../io/approvals.js";
import { Inbox } from "../io/inbox.js";
import { Agent } from "../kernel/agent.js";
import { KNOWLEDGE_TOOL_NAMES } from "../knowledge/tools.js";
import { installBundledAdapters } from "../llm/adapters.js";
import type { ProviderManager } from "../llm/manager.js";
import { startLlmSources } from "../llm/sources/live-sources.js";
import { llmSourceTools } from "../llm/sources/source-tools.js";
import { HEARTBEAT_CONFIG_DEFS } from "../memory/distill/config.js";
import { memoryApis } from "../memory/memory-api.js";
import { openMemoryStore } from "../memory/store.js";
import { MemorySystem } from "../memory/system.js";
import { authHost } from "../plugins/auth-host.js";
import { ForgetHooks } from "../plugins/forget-hooks.js";
import { type PluginFactory, PluginRegistry } from "../plugins/registry.js";
import type { PluginHost } from "../plugins/sdk-impl.js";
import { WriteBacklog } from "../transcripts/backlog.js";
import { chooseVersion } from "../transcripts/choose.js";
import { openTranscriptsDb } from "../transcripts/database.js";
import { recordTranscripts } from "../transcripts/recorder.js";
import { TranscriptStore } from "../transcripts/store.js";
import { errorMessage } from "../util/errors.js";
import { userZone } from "../util/time-zone.js";
import { compileInWorkersOwnThread } from "../util/worker-isolates.js";
import { VERSION } from "../version.js";
import { agentParts } from "./agent-parts.js";
import { forgetInHistoryFile, historyFile } from "./input-history.js";
import { createLogger, type LogLevel, streamLines } from "./log.js";
import { type DataPaths, prepareDataDir } from "./paths.js";
import { rehearseTurns } from "./rehearsal.js";
import { EMBEDDING_PENDING, type Retrieval, startRetrieval } from "./retrieval.js";
import { agentSettings, reportConfig } from "./settings.js";
import { openUsageFile } from "./usage-file.js";
import { warmUp } from "./warm-up.js";

export interface DaemonOptions {
  dataDir: string;
  env?: Record<string, string | undefined>;
  /** Where log lines go; default stderr. */
  logWrite?: (line: string) => void;
  plugins?: PluginFactory[];
  /**
   * Where to look for a local Ollama when no LLM source is configured; "" = do not look. Default: env
   * HOMEAGENT_OLLAMA_URL, else http://127.0.0.1:11434.
   */
  ollamaUrl?: string;
  /** Limit of each LLM adapter call, in ms; default LuaAdaptedProvider's (tests shrink it). */
  adapterTimeoutMs?: number;
}

export interface Daemon {
  paths: DataPaths;
  config: ConfigRegistry;
  auth: Auth;
  agent: Agent;
  llm: ProviderManager;
  plugins: PluginRegistry;
  retrieval: Retrieval;
  /** What every plugin's SDK is built on (auth, llm, adapters, knowledge …), for tests and tools. */
  host: PluginHost;
  log: Logger;
  status(): KernelStatus;
  stop(): Promise<void>;
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const started = Date.now();
  // Everything the daemon creates from here on (databases, knowledge files, copied adapters) is private.
  process.umask(0o077);
  // Before any plugin starts a worker of its own (the file tools' document reader).
  compileInWorkersOwnThread();
  const { paths, corrected } = prepareDataDir(opts.dataDir);
  const env = opts.env ?? process.env;
  const config = ConfigRegistry.open(paths.configDb, { env });
  // The config center knows the core keys; each subsystem brings its own definitions (config imports none).
  config.registerDefs([...HEARTBEAT_CONFIG_DEFS]);
  const write = opts.logWrite ?? streamLines(process.stderr);
  // Computed when a line is logged after a secret changed, or a plugin declared settings (which may make a
  // stored value a secret, or a json setting's fields secrets): one scan of every setting, not one each.
  let secrets: string[] | undefined;
  config.onChange((key) => {
    const def = config.def(key);
    if (isSecret(def, key) || def?.secretFields?.length) secrets = undefined;
  });
  config.onDefine(() => {
    secrets = undefined;
  });
  const sink = {
    level: () => (config.get("core.daemon.log_level") ?? "info") as LogLevel,
    secrets: () => {
      secrets ??= config.secrets();
      return secrets;
    },
    write,
  };
  const logger = (scope: string) => createLogger(scope, sink);
  const log = logger("homed");

  if (corrected.length > 0) {
    log.warn(
      `made ${corrected.length} file(s) in ${paths.root} private (0700 folders, 0600 files); they were readable by others, e.g. ${corrected[0]}`,
    );
  }

  const auth = Auth.open({ dataDir: paths.root, configDb: paths.configDb, env });
  const credentials = await auth.ensureCredentials();
  if (credentials.created) log.info(`first start: the admin password and API key are in ${credentials.file}`);

  installBundledAdapters(paths.root);
  const settings = agentSettings(config);
  const usage = openUsageFile({ file: paths.usage, zone: () => userZone(settings.timezone()), log: logger("llm") });
  const sources = await startLlmSources({
    config,
    dataDir: paths.root,
    ollamaUrl: opts.ollamaUrl,
    adapterTimeoutMs: opts.adapterTimeoutMs,
    env,
    log: logger("llm"),
    onCall: (source, used) => usage.meter.recordCall(source, used),
  });
  const { llm } = sources;
  const llmApi = sources.api;

  const memoryLog = logger("memory");
  const memoryDb = openMemoryStore(paths.memoryDb, {
    checkpoints: { onError: (err) => memoryLog.warn(`checkpointing memory.db failed: ${errorMessage(err)}`) },
  });
  const memory = new MemorySystem({
    db: memoryDb,
    dataDir: paths.root,
    settings: {
      maxContextSize: () => settings.maxContextSize(),
      zone: () => userZone(settings.timezone()),
      duration: (key) => config.getDuration(key),
    },
    log: memoryLog,
  });
  const kernelLog = logger("kernel");
  const inbox = new Inbox(memoryDb);
  const transcriptsDb = openTranscriptsDb(paths.transcriptsDb);
  const transcripts = new TranscriptStore(transcriptsDb, {
    maxDays: () => config.getInt("core.transcripts.max_days"),
    maxBytes: () => config.getInt("core.transcripts.max_mb") * 1024 * 1024,
  });
  const transcriptWrites = new WriteBacklog((msg) => kernelLog.warn(msg));
  const { send, ...parts } = agentParts(kernelLog, inbox, (message) =>
    transcriptWrites.run(() => transcripts.message(message)),
  );
  const agent = new Agent({
    llm,
    context: memory.context,
    memory: memory.memoryContext,
    settings,
    log: kernelLog,
    ...parts,
    onAnswered: (source) => usage.meter.recordTurn(source),
    words: tokenize,
  });
  memory.attach(agent);
  recordTranscripts(agent.bus, transcripts, transcriptWrites);
  const approvals = new ApprovalBroker({
    store: new ApprovalStore(memoryDb),
    timeoutMs: () => config.getDuration("core.agent.approval_timeout"),
    runningCall: (requestId, owner) => agent.tools.runningCall(requestId, owner),
    publish: (payload) => agent.bus.publish("approval", "kernel", payload),
  });
  // The warm-up after start (warm-up.ts) is for the first turn: once one has begun, or the daemon stops, its
  // rehearsal does not start or ends after the turn it is on. One plain controller for both: a signal of
  // AbortSignal.any aborted inside the first turn cost it ≈ 2 ms on Node 20.
  const warming = new AbortController();
  const offFirstTurn = agent.bus.subscribe("raw_input", () => {
    warming.abort();
    offFirstTurn();
  });
  config.onChange((key) => memory.settingChanged(key));
  const announce = (payload: Record<string, unknown>) => agent.bus.publish("system", "kernel", payload);
  sources.announceTo(announce);
  agent.registerCoreTools("llm", llmSourceTools(llmApi));
  agent.registerCoreTools("memory", memory.tools());
  agent.start();
  const embeddings = new EmbeddingRegistry();
  registerBuiltinEmbedders(embeddings, logger("retrieval"));

  let plugins: PluginRegistry;
  let retrieval: Retrieval | undefined;
  const status = (): KernelStatus => {
    const s = agent.status();
    return {
      version: VERSION,
      uptimeS: Math.round((Date.now() - started) / 1000),
      busy: s.busy,
      queued: s.queued,
      processed: s.processed,
      tools: s.tools,
      outputChannels: s.outputChannels,
      llm: { sources: llm.sources() },
      plugins: plugins.list(),
      embedding: retrieval?.embedding() ?? EMBEDDING_PENDING,
      events: agent.bus.stats(),
      configProblems: config.problems().map(({ key, message }) => ({ key, message })),
      usage: usage.meter.today(),
    };
  };
  const host: PluginHost = {
    agent,
    auth: authHost(auth),
    adapters: sources.adapters,
    config,
    dataDir: paths.root,
    logger,
    status,
    llm: llmApi,
    embeddings,
    memory: memoryApis(memory),
    forgetHooks: new ForgetHooks(),
    io: {
      send,
      inbox,
      approvals,
      transcripts: {
        list: (query) => transcripts.list(query),
        choose: (requestId) => chooseVersion(agent, transcripts, requestId),
      },
    },
  };
  plugins = new PluginRegistry(host, config, log, { pluginDir: paths.plugins });
  host.plugins = plugins;
  // Core tools that register after the plugins keep their names: a plugin asking for one is refused.
  agent.reserveToolNames(KNOWLEDGE_TOOL_NAMES);
  await plugins.startAll(opts.plugins ?? builtinPlugins());
  // After the plugins, so that an embedding provider a plugin added can be the configured one.
  const ready = startRetrieval(config, embeddings, paths.root, logger("retrieval"), announce, memory);
  retrieval = ready;
  host.knowledge = ready.knowledge;
  memory.forgetting.setReach({
    plugins: (request) => host.forgetHooks.run(request),
    knowledge: (terms, remove) => ready.forgetKnowledge(terms, remove),
    history: (terms, remove) => forgetInHistoryFile(historyFile(paths.root), terms, remove),
    databases: [paths.transcriptsDb],
    kept: (terms, remove) => ({
      inbox: inbox.forget(terms, remove),
      approvals: approvals.forget(terms, remove),
      transcripts: transcripts.forget(terms, remove),
    }),
  });
  // After the plugins, so that settings they declared are checked too.
  reportConfig(config, log, announce);
  agent.registerCoreTools("knowledge", ready.knowledgeTools);
  agent.bus.publish("system", "kernel", { kind: "started", version: VERSION, dataDir: paths.root });
  log.info(`homed ${VERSION} ready (data dir ${paths.root})`);
  memory.started();
  let rehearsing: Promise<unknown> = Promise.resolve();
  void warmUp({
    llm,
    env,
    recent: memory.context.events(),
    preview: (q) => agent.previewContext(q),
    rehearse: (cjk) => {
      rehearsing = rehearseTurns({ settings, cjk, signal: warming.signal, log });
      return rehearsing;
    },
    signal: warming.signal,
    log,
  });

  return {
    paths,
    config,
    auth,
    agent,
    llm,
    plugins,
    retrieval: ready,
    host,
    log,
    status,
    // The kernel first: it answers every waiting caller ("homed is shutting down") while the plugins can
    // still deliver that answer; then the plugins close their sockets.
    stop: async () => {
      log.info("stopping");
      // The rehearsal cleans up before the kernel stops; the rest of the warm-up needs no waiting for.
      warming.abort();
      await rehearsing;
      approvals.close();
      await agent.stop();
      await plugins.stopAll();
      sources.close();
      usage.close();
      await ready.close();
      await memory.close();
      memoryDb.close();
      transcriptWrites.close();
      transcriptsDb.close();
      auth.close();
      config.close();
    },
  };
}
