/**
 * Turns the configured LLM sources (`core.llm.sources.<name>.*`, plus the `env` source, or a local Ollama
 * found at start when nothing is configured) into providers for the ProviderManager, and asks local
 * servers what their models can do. A source that cannot be built is skipped with a warning that says why.
 */
import type { Logger } from "@homeagent/sdk";
import { type ConfigRegistry, type LlmSourceConfig, NO_SOURCE_CONFIGURED } from "../../config/registry.js";
import { errorMessage } from "../../util/errors.js";
import type { CallLimits } from "../call-watch.js";
import { LuaAdaptedProvider } from "../lua-provider.js";
import type { ProviderManager } from "../manager.js";
import { ReloadingProvider } from "../reloading-provider.js";
import type { SourceEntry, SourceInfo } from "../source-state.js";
import { detectOllama, isLoopback, probeOllamaModel, probeOpenAIModel } from "./local-models.js";

export const LOCAL_SOURCE = "ollama-local";

/**
 * The configured sources; the auto-detected local one only while nothing is configured. Never throws: the
 * config center serves only values that passed validation (a bad stored one reads as its default).
 */
export function sourceConfigs(config: ConfigRegistry, local?: LlmSourceConfig): LlmSourceConfig[] {
  const names = config.sourceNames();
  if (names.length === 0) return local ? [local] : [];
  return names.map((name) => config.source(name));
}

/** The limits of every LLM call, as configured now (`core.llm.*_timeout`, `core.llm.max_response_bytes`). */
export type SourceLimits = Omit<CallLimits, "maxLineBytes">;

export function sourceLimits(config: ConfigRegistry): SourceLimits {
  return {
    firstByteTimeoutMs: config.getDuration("core.llm.first_byte_timeout"),
    firstContentTimeoutMs: config.getDuration("core.llm.first_content_timeout"),
    idleTimeoutMs: config.getDuration("core.llm.stream_idle_timeout"),
    callTimeoutMs: config.getDuration("core.llm.call_timeout"),
    maxResponseBytes: config.getInt("core.llm.max_response_bytes"),
  };
}

/** `adapterTimeoutMs` is the limit of each adapter call (LuaAdaptedProvider's default when undefined). */
export function buildSources(
  configs: LlmSourceConfig[],
  dataDir: string,
  limits: SourceLimits,
  log: Logger,
  adapterTimeoutMs?: number,
): SourceEntry[] {
  const sources: SourceEntry[] = [];
  for (const src of configs) {
    if (!src.baseUrl) {
      log.warn(`LLM source "${src.name}" has no base_url; set core.llm.sources.${src.name}.base_url`);
      continue;
    }
    try {
      const provider = new ReloadingProvider({
        dataDir,
        adapter: src.adapter,
        log,
        build: (adapterSource, libraries) =>
          new LuaAdaptedProvider({
            sourceName: src.name,
            adapterName: src.adapter,
            adapterSource,
            libraries,
            baseUrl: src.baseUrl,
            apiKey: src.apiKey,
            model: src.model,
            ...limits,
            timeoutMs: adapterTimeoutMs,
            log,
          }),
      });
      sources.push({
        name: src.name,
        provider,
        priority: src.priority,
        adapter: src.adapter,
        maxConcurrent: src.maxConcurrent,
        contextWindow: src.contextWindow,
        thinkingEnabled: src.thinkingEnabled,
        fingerprint: fingerprint(src, limits),
      });
    } catch (err) {
      log.warn(`LLM source "${src.name}" skipped: ${errorMessage(err)}`);
    }
  }
  return sources;
}

/**
 * Asks each local server what its model can do (Ollama: context length and tools; OpenAI-compatible
 * servers on this machine: context length), once per source configuration. Cloud APIs are not asked.
 */
export class SourceProber {
  private readonly probed = new Map<string, string>();

  constructor(private readonly log: Logger) {}

  async probe(configs: LlmSourceConfig[], llm: ProviderManager): Promise<void> {
    await Promise.all(
      configs.map(async (src) => {
        const print = fingerprint(src);
        if (!src.baseUrl || this.probed.get(src.name) === print) return;
        this.probed.set(src.name, print);
        const info = await probeSource(src);
        if (info.contextWindow === undefined && info.supportsTools === undefined) return;
        llm.setSourceInfo(src.name, info);
        const facts = [
          info.contextWindow ? `context window ${info.contextWindow} tokens` : "",
          info.supportsTools === undefined ? "" : info.supportsTools ? "supports tools" : "does not support tools",
        ].filter(Boolean);
        this.log.info(`LLM source ${src.name} (${src.model || "default model"}): ${facts.join(", ")}`);
      }),
    );
  }
}

function probeSource(src: LlmSourceConfig): Promise<SourceInfo> {
  if (src.adapter === "ollama") return probeOllamaModel(src.baseUrl, src.model);
  if (isLoopback(src.baseUrl)) return probeOpenAIModel(src.baseUrl, src.model, { apiKey: src.apiKey });
  return Promise.resolve({});
}

/** The source to use when nothing is configured and an Ollama server answers at `url`. */
export async function detectLocalSource(url: string, log: Logger): Promise<LlmSourceConfig | undefined> {
  const model = await detectOllama(url, { timeoutMs: 500 });
  if (!model) return undefined;
  log.info(
    `nothing configured under core.llm.sources; found Ollama at ${url}: using it as source "${LOCAL_SOURCE}" with model ${model} ` +
      "(configure core.llm.sources.<name>.* to choose another)",
  );
  return {
    name: LOCAL_SOURCE,
    adapter: "ollama",
    baseUrl: url,
    model,
    apiKey: "",
    priority: 0,
    maxConcurrent: 0,
    contextWindow: 0,
    thinkingEnabled: false,
  };
}

export function describeSources(llm: ProviderManager): string {
  const list = llm.sources();
  if (list.length === 0) {
    return NO_SOURCE_CONFIGURED;
  }
  return `LLM sources in order: ${list.map((s) => `${s.name} (${s.model || "default model"})`).join(", ")}`;
}

// Kept in memory only; it holds the API key so that a changed key counts as a changed source. A changed
// limit rebuilds the providers too, so that it applies from the next call without a restart.
function fingerprint(src: LlmSourceConfig, limits?: SourceLimits): string {
  return JSON.stringify([src, limits]);
}
