/**
 * Assembles the daemon: config center, logging, LLM sources, memory, kernel, plugins. `stop()` takes it
 * down in reverse order; every piece is closed even if an earlier one fails to.
 */
import type { KernelStatus, Logger } from "@homeagent/sdk";
import { builtinPlugins } from "../builtins/index.js";
import { ConfigRegistry } from "../config/registry.js";
import { Agent } from "../kernel/agent.js";
import { installBundledAdapters } from "../llm/adapters.js";
import { ProviderManager } from "../llm/manager.js";
import { RecentContext } from "../memory/recent-context.js";
import { openMemoryStore } from "../memory/store.js";
import { type PluginFactory, PluginRegistry } from "../plugins/registry.js";
import { VERSION } from "../version.js";
import { createLogger, type LogLevel } from "./log.js";
import { type DataPaths, prepareDataDir } from "./paths.js";
import { buildSources, describeSources } from "./providers.js";
import { agentSettings } from "./settings.js";

export interface DaemonOptions {
  dataDir: string;
  env?: Record<string, string | undefined>;
  /** Where log lines go; default stderr. */
  logWrite?: (line: string) => void;
  plugins?: PluginFactory[];
}

export interface Daemon {
  paths: DataPaths;
  config: ConfigRegistry;
  agent: Agent;
  llm: ProviderManager;
  plugins: PluginRegistry;
  log: Logger;
  status(): KernelStatus;
  stop(): Promise<void>;
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const started = Date.now();
  const paths = prepareDataDir(opts.dataDir);
  const config = ConfigRegistry.open(paths.configDb, { env: opts.env ?? process.env });
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
  const llm = new ProviderManager({ retryDelayMs: config.getDuration("core.llm.retry_delay"), log: logger("llm") });
  const reloadSources = () => {
    llm.setSources(buildSources(config, paths, logger("llm")));
    if (llm.hasSources()) log.info(describeSources(llm));
    else log.warn(describeSources(llm));
  };
  reloadSources();
  let reloadQueued = false;
  config.onChange((key) => {
    if (!key.startsWith("core.llm.") || reloadQueued) return;
    reloadQueued = true;
    queueMicrotask(() => {
      reloadQueued = false;
      reloadSources();
    });
  });

  const memory = openMemoryStore(paths.memoryDb);
  const agent = new Agent({
    llm,
    context: new RecentContext(memory),
    settings: agentSettings(config),
    log: logger("kernel"),
  });
  agent.start();

  let plugins: PluginRegistry;
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
    };
  };
  plugins = new PluginRegistry({ agent, config, dataDir: paths.root, logger, status }, config, log);
  await plugins.startAll(opts.plugins ?? builtinPlugins());
  agent.bus.publish("system", "kernel", { kind: "started", version: VERSION, data_dir: paths.root });
  log.info(`homed ${VERSION} ready (data dir ${paths.root})`);

  return {
    paths,
    config,
    agent,
    llm,
    plugins,
    log,
    status,
    stop: async () => {
      log.info("stopping");
      await plugins.stopAll();
      await agent.stop();
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
