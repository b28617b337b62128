/**
 * The LLM source view of the config center: `core.llm.sources.<name>.*` keys read as one LlmSourceConfig
 * per source. The original's single-source keys (`core.llm.base_url`, `model`, `api_key`, `adapter`) are
 * not settings here: they described the one seeded source, which sources.<name>.* now say directly. Rows
 * an older config.db still holds are moved into source "default" once, so nothing set there is lost.
 */
import type { ConfigStore } from "./store.js";
import { NAME_RULE } from "./validate.js";

export interface LlmSourceConfig {
  name: string;
  adapter: string;
  baseUrl: string;
  model: string;
  apiKey: string;
  priority: number;
  maxConcurrent: number;
  contextWindow: number;
  thinkingEnabled: boolean;
}

/** What the daemon says when it has no source to call; one copy for every daemon-side message. */
export const NO_SOURCE_CONFIGURED =
  "no LLM source configured: set HOMEAGENT_LLM_BASE_URL (and HOMEAGENT_LLM_API_KEY, HOMEAGENT_LLM_MODEL) " +
  "or core.llm.sources.<name>.base_url / .model / .api_key";

/** Sources beyond this are refused: each one is a provider, a semaphore and a probe. */
export const MAX_SOURCES = 32;

/** Where the old single-source keys are moved. */
const LEGACY_SOURCE = "default";
const LEGACY_FIELDS = ["base_url", "model", "api_key", "adapter"] as const;
export const SOURCE_PREFIX = "core.llm.sources.";
const SOURCE_KEY = /^core\.llm\.sources\.([^.]+)\.[^.]+$/;

/** The source name in a `core.llm.sources.<name>.<field>` key. */
export function sourceNameOf(key: string): string | undefined {
  return SOURCE_KEY.exec(key)?.[1];
}

/** What to say when someone sets a key that is not a setting but looks like one of the source keys. */
export function sourceKeyHint(key: string): string | undefined {
  const legacy = /^core\.llm\.(base_url|model|api_key|adapter)$/.exec(key);
  if (legacy) {
    return (
      `${key} is not a setting: LLM sources are configured one by one; ` +
      `use core.llm.sources.<name>.${legacy[1]} (e.g. core.llm.sources.main.${legacy[1]})`
    );
  }
  if (key.startsWith(SOURCE_PREFIX)) {
    return (
      `unknown config key ${key}: a source's keys are core.llm.sources.<name>.` +
      "{base_url, model, api_key, adapter, priority, max_concurrent, context_window, thinking_enabled}; " +
      `a name has ${NAME_RULE}`
    );
  }
  return undefined;
}

/** What to say when adding source `name` would exceed MAX_SOURCES. */
export function sourceLimitMessage(name: string): string {
  return `at most ${MAX_SOURCES} LLM sources can be configured; remove one (unset its keys) before adding ${name}`;
}

/** Names of the sources with a known key stored or set by the environment, sorted. */
export function sourceNames(keys: Iterable<string>, isSetting: (key: string) => boolean): string[] {
  const names = new Set<string>();
  for (const key of keys) {
    const name = sourceNameOf(key);
    if (name !== undefined && isSetting(key)) names.add(name);
  }
  return [...names].sort();
}

/** The typed getters of the registry, which never throw for a defined key. */
export interface SourceReader {
  get(key: string): string | undefined;
  getInt(key: string): number;
  getBool(key: string): boolean;
}

export function readSource(config: SourceReader, name: string): LlmSourceConfig {
  const k = (field: string) => `${SOURCE_PREFIX}${name}.${field}`;
  return {
    name,
    adapter: config.get(k("adapter")) ?? "",
    baseUrl: config.get(k("base_url")) ?? "",
    model: config.get(k("model")) ?? "",
    apiKey: config.get(k("api_key")) ?? "",
    priority: config.getInt(k("priority")),
    maxConcurrent: config.getInt(k("max_concurrent")),
    contextWindow: config.getInt(k("context_window")),
    thinkingEnabled: config.getBool(k("thinking_enabled")),
  };
}

/**
 * Moves stored `core.llm.{base_url,model,api_key,adapter}` rows into source "default" (unless that source
 * already exists, then they stay and are reported as unknown keys). Returns a line for the start-up log.
 */
export function migrateLegacyLlmKeys(store: ConfigStore): string | undefined {
  const found = LEGACY_FIELDS.flatMap((field) => {
    const value = store.get(`core.llm.${field}`);
    return value === undefined ? [] : [{ field, value }];
  });
  if (found.length === 0) return undefined;
  const keys = found.map((f) => `core.llm.${f.field}`).join(", ");
  if (store.count(`${SOURCE_PREFIX}${LEGACY_SOURCE}.`) > 0) {
    return (
      `${keys} are no longer settings and were not moved, because source "${LEGACY_SOURCE}" exists; ` +
      "they are ignored: set what you need as core.llm.sources.<name>.*"
    );
  }
  store.transaction(() => {
    for (const { field, value } of found) {
      store.put(`${SOURCE_PREFIX}${LEGACY_SOURCE}.${field}`, value);
      store.delete(`core.llm.${field}`);
    }
  });
  return `moved ${keys} into LLM source "${LEGACY_SOURCE}" (${SOURCE_PREFIX}${LEGACY_SOURCE}.*): sources are configured one by one`;
}
