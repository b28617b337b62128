/**
 * The PluginSDK each plugin receives. Everything a plugin registers is recorded here, so that stopping
 * or crashing the plugin detaches all of it at once.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { KernelStatus, LlmAPI, Logger, PluginSDK } from "@homeagent/sdk";
import type { ConfigRegistry } from "../config/registry.js";
import type { EmbeddingRegistry } from "../embedding/spi.js";
import type { Agent } from "../kernel/agent.js";

export interface PluginHost {
  agent: Agent;
  config: ConfigRegistry;
  dataDir: string;
  logger(scope: string): Logger;
  status(): KernelStatus;
  llm: LlmAPI;
  embeddings: EmbeddingRegistry;
}

export interface PluginBinding {
  sdk: PluginSDK;
  /** Removes every tool, stage handler, output channel and subscription the plugin registered. */
  detach(): void;
}

export function createPluginSDK(name: string, host: PluginHost): PluginBinding {
  const { agent, config } = host;
  const unsubscribers = new Set<() => void>();
  const embedders: string[] = [];
  const dataDir = join(host.dataDir, "plugin_data", name);
  mkdirSync(dataDir, { recursive: true });
  const settings = config.pluginSettings(name);

  const sdk: PluginSDK = {
    pluginName: name,
    dataDir,
    daemonDataDir: host.dataDir,
    log: host.logger(name),
    registerTool: (def, handler) => agent.tools.register(name, def, handler),
    registerStage: (stage, handler, scope) => {
      agent.stages.register(name, stage, handler, scope);
    },
    registerOutputChannel: (channel, caps, description, handler, opts) =>
      agent.outputs.register(name, channel, caps, description, handler, opts),
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
    injectInput: (source, channel, text, opts) => agent.injectInput(source, channel, text, opts),
    injectInputSync: (source, channel, text, opts) => agent.injectInputSync(source, channel, text, opts),
    injectInterrupt: (source, channel, text) => agent.injectInterrupt(source, channel, text),
    settings: {
      get: (key) => settings.get(key),
      set: (key, value) => settings.set(key, value),
      list: () => settings.list(),
    },
    config: {
      list: (prefix) => config.list(prefix),
      set: (key, value) => config.set(key, value),
    },
    auth: {
      required: () => apiKey(config) !== "",
      verify: (key) => verifyKey(apiKey(config), key),
    },
    kernel: {
      status: () => host.status(),
      toolNames: () => agent.tools.names(),
    },
    llm: {
      sources: () => host.llm.sources(),
      use: (source) => host.llm.use(source),
    },
  };

  return {
    sdk,
    detach: () => {
      for (const off of unsubscribers) off();
      unsubscribers.clear();
      agent.tools.unregisterPlugin(name);
      agent.stages.unregisterPlugin(name);
      agent.outputs.unregisterPlugin(name);
      for (const provider of embedders.splice(0)) host.embeddings.unregister(provider);
    },
  };
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
