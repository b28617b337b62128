/**
 * Assembles the daemon: config center, logging, LLM sources, memory, retrieval, kernel, plugins. `stop()` takes it
 * down in reverse order; every piece is closed even if an earlier one fails to.
 */
import type { KernelStatus, LlmAPI, Logger } from "@homeagent/sdk";
import { builtinPlugins } from "../builtins/index.js";
import { ConfigRegistry } from "../config/registry.js";
import { EmbeddingRegistry } from "../embedding/spi.js";
import { registerBuiltinEmbedders } from "../embedding/tiers.js";
import { Agent } from "../kernel/agent.js";
import { installBundledAdapters } from "../llm/adapters.js";
import { DEFAULT_OLLAMA_URL } from "../llm/local-models.js";
import { ProviderManager } from "../llm/manager.js";
import { llmSourceTools } from "../llm/source-tools.js";
import { RecentContext } from "../memory/recent-context.js";
import { openMemoryStore } from "../memory/store.js";
import { type PluginFactory, PluginRegistry } from "../plugins/registry.js";
import { VERSION } from "../version.js";
import { createLogger, type LogLevel } from "./log.js";
import { type DataPaths, prepareDataDir } from "./paths.js";
import { buildSources, describeSources, detectLocalSource, SourceProber, sourceConfigs } from "./providers.js";
import { EMBEDDING_PENDING, type Retrieval, startRetrieval } from "./retrieval.js";
import { agentSettings } from "./settings.js";

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
}

export interface Daemon {
  paths: DataPaths;
  config: ConfigRegistry;
  agent: Agent;
  llm: ProviderManager;
  plugins: PluginRegistry;
  retrieval: Retrieval;
  log: Logger;
  status(): KernelStatus;
  stop(): Promise<void>;
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const started = Date.now();
  const paths = prepareDataDir(opts.dataDir);
  const env = opts.env ?? process.env;
  const config = ConfigRegistry.open(paths.configDb, { env });
  const write = opts.logWrite ?? ((line: string) => process.stderr.write(line));
  let secrets = knownSecrets(config);
  config.onChange(() => {
    secrets = knownSecrets(config);
  });
  const sink = {
    level: () => (config.get("core.daemon.log_level") ?? "info") as LogLevel,
    secrets: () => secrets,
    write,
  };
  const logger = (scope: string) => createLogger(scope, sink);
  const log = logger("homed");

  installBundledAdapters(paths.root);
  const llmLog = logger("llm");
  // The agent (and its event bus) is created after the sources; notices before that only go to the log.
  let announce: (payload: Record<string, unknown>) => void = () => {};
  const llm = new ProviderManager({
    retryDelayMs: config.getDuration("core.llm.retry_delay"),
    log: llmLog,
    onNotice: (notice) => announce({ ...notice }),
  });
  const ollamaUrl = opts.ollamaUrl ?? env.HOMEAGENT_OLLAMA_URL ?? DEFAULT_OLLAMA_URL;
  const local = config.sourceNames().length === 0 && ollamaUrl ? await detectLocalSource(ollamaUrl, llmLog) : undefined;
  const prober = new SourceProber(llmLog);
  const reloadSources = () => {
    const firstByteTimeoutMs = config.getDuration("core.llm.first_byte_timeout");
    const configs = sourceConfigs(config, local);
    llm.setSources(buildSources(configs, paths.root, firstByteTimeoutMs, llmLog));
    applyPreferred();
    if (llm.hasSources()) log.info(describeSources(llm));
    else log.warn(describeSources(llm));
    return prober.probe(configs, llm, firstByteTimeoutMs);
  };
  const applyPreferred = () => {
    const name = config.get("core.llm.provider") ?? "";
    try {
      llm.setPreferred(name);
    } catch (err) {
      llmLog.warn(`core.llm.provider: ${(err as Error).message}; using the priority order`);
      llm.setPreferred("");
    }
  };
  await reloadSources();
  let reloadQueued = false;
  config.onChange((key) => {
    if (!key.startsWith("core.llm.") || reloadQueued) return;
    reloadQueued = true;
    queueMicrotask(() => {
      reloadQueued = false;
      reloadSources().catch((err) => llmLog.warn(`probing LLM sources failed: ${(err as Error).message}`));
    });
  });
  const llmApi: LlmAPI = {
    sources: () => llm.sources(),
    use: (name) => {
      llm.setPreferred(name);
      config.set("core.llm.provider", name);
    },
  };

  const memory = openMemoryStore(paths.memoryDb);
  const agent = new Agent({
    llm,
    context: new RecentContext(memory),
    settings: agentSettings(config),
    log: logger("kernel"),
  });
  announce = (payload) => agent.bus.publish("system", "kernel", payload);
  for (const tool of llmSourceTools(llmApi)) agent.tools.register("kernel", tool.def, tool.handler);
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
      plugins: plugins.states(),
      embedding: retrieval?.embedding() ?? EMBEDDING_PENDING,
    };
  };
  const host = { agent, config, dataDir: paths.root, logger, status, llm: llmApi, embeddings };
  plugins = new PluginRegistry(host, config, log);
  await plugins.startAll(opts.plugins ?? builtinPlugins());
  // After the plugins, so that an embedding provider a plugin added can be the configured one.
  const ready = startRetrieval(config, embeddings, paths.root, logger("retrieval"), announce);
  retrieval = ready;
  for (const tool of ready.knowledgeTools) agent.tools.register("kernel", tool.def, tool.handler);
  agent.bus.publish("system", "kernel", { kind: "started", version: VERSION, data_dir: paths.root });
  log.info(`homed ${VERSION} ready (data dir ${paths.root})`);

  return {
    paths,
    config,
    agent,
    llm,
    plugins,
    retrieval: ready,
    log,
    status,
    stop: async () => {
      log.info("stopping");
      await plugins.stopAll();
      await agent.stop();
      await ready.close();
      memory.close();
      config.close();
    },
  };
}

function knownSecrets(config: ConfigRegistry): string[] {
  const keys = [config.get("core.daemon.api_key"), config.get("core.llm.api_key")];
  for (const name of config.sourceNames()) keys.push(config.source(name).apiKey);
  return keys.filter((k): k is string => !!k);
}
