/**
 * Turns the configured LLM sources (`core.llm.sources.<name>.*`, plus the `env` source) into providers
 * for the ProviderManager. A source that cannot be built is skipped with a warning that says why.
 */
import type { Logger } from "@homeagent/sdk";
import type { ConfigRegistry } from "../config/registry.js";
import { loadAdapterSource } from "../llm/adapters.js";
import { LuaAdaptedProvider } from "../llm/lua-provider.js";
import type { ProviderManager } from "../llm/manager.js";
import type { DataPaths } from "./paths.js";

export function buildSources(config: ConfigRegistry, paths: DataPaths, log: Logger) {
  const sources = [];
  for (const name of config.sourceNames()) {
    const src = config.source(name);
    if (!src.baseUrl) {
      log.warn(`LLM source "${name}" has no base_url; set core.llm.sources.${name}.base_url`);
      continue;
    }
    try {
      const provider = new LuaAdaptedProvider({
        sourceName: name,
        adapterName: src.adapter,
        adapterSource: loadAdapterSource(paths.root, src.adapter),
        baseUrl: src.baseUrl,
        apiKey: src.apiKey,
        model: src.model,
        log,
      });
      sources.push({ name, provider, priority: src.priority });
    } catch (err) {
      log.warn(`LLM source "${name}" skipped: ${err instanceof Error ? err.message : err}`);
    }
  }
  return sources;
}

export function describeSources(llm: ProviderManager): string {
  const list = llm.sources();
  if (list.length === 0) {
    return "no LLM source configured: set HOMEAGENT_LLM_BASE_URL (and HOMEAGENT_LLM_API_KEY, HOMEAGENT_LLM_MODEL), or core.llm.sources.<name>.base_url with /settings set";
  }
  return `LLM sources in order: ${list.map((s) => `${s.name} (${s.model || "default model"})`).join(", ")}`;
}
