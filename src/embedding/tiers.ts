/**
 * Chooses the embedding tier from `core.embedding.*`. The order is the architecture's: a unified space
 * (`http`, then a local `transformers` folder) → `static` word vectors → `lexical`, which always works.
 * A tier that is chosen or configured but cannot be used (server unreachable, file missing, model
 * invalid) is reported — log line, `system` event, status — and selection moves to the next tier. A tier
 * is only ever active after it really embedded something; nothing is faked.
 */
import type { EmbeddingStatusInfo, Logger } from "@homeagent/sdk";
import { parseDuration } from "../config/duration.js";
import type { ConfigRegistry } from "../config/registry.js";
import { errorMessage } from "../util/errors.js";
import { EmbeddingError } from "./errors.js";
import { HttpEmbedder, type HttpEmbeddingApi } from "./http.js";
import { LexicalEmbedder } from "./lexical.js";
import { type EmbeddingProvider, EmbeddingRegistry } from "./spi.js";
import { StaticEmbedder } from "./static.js";
import { TransformersEmbedder } from "./transformers.js";

/** Built-in tiers, best first. */
export const TIER_ORDER = ["http", "transformers", "static", "lexical"] as const;

/** The keys a tier is configured by; settings handed to factories are exactly these. */
const KEYS = {
  provider: "core.embedding.provider",
  httpBaseUrl: "core.embedding.http.base_url",
  httpApi: "core.embedding.http.api",
  httpModel: "core.embedding.http.model",
  httpApiKey: "core.embedding.http.api_key",
  httpDimension: "core.embedding.http.dimension",
  httpBatchSize: "core.embedding.http.batch_size",
  httpTimeout: "core.embedding.http.timeout",
  transformersPath: "core.embedding.transformers.model_path",
  staticPaths: "core.agent.embedding_model_path",
} as const;

/** The key without which a tier counts as not configured. */
const REQUIRED: Record<string, string> = {
  http: KEYS.httpBaseUrl,
  transformers: KEYS.transformersPath,
  static: KEYS.staticPaths,
};

/** Tiers above the active one that are not in use are listed in `degraded`, with why. */
export type EmbeddingStatus = EmbeddingStatusInfo;

export interface SelectOptions {
  log: Logger;
  /** Receives `system` event payloads (the caller publishes them on the bus). */
  onSystemEvent?: (payload: Record<string, unknown>) => void;
  /** Registry to build providers from; default: one with the built-in tiers. */
  registry?: EmbeddingRegistry;
}

/** Registers the four built-in tiers; their factories read the `core.embedding.*` settings. */
export function registerBuiltinEmbedders(registry: EmbeddingRegistry, log: Logger): void {
  registry.register("lexical", () => new LexicalEmbedder());
  registry.register("http", (s) =>
    HttpEmbedder.connect({
      api: s[KEYS.httpApi] as HttpEmbeddingApi,
      baseUrl: s[KEYS.httpBaseUrl],
      model: s[KEYS.httpModel],
      apiKey: s[KEYS.httpApiKey],
      dimension: Number(s[KEYS.httpDimension] || 0),
      batchSize: Number(s[KEYS.httpBatchSize] || 64),
      timeoutMs: parseDuration(s[KEYS.httpTimeout] || "30s"),
    }),
  );
  registry.register("transformers", (s) => TransformersEmbedder.load(s[KEYS.transformersPath]));
  registry.register("static", (s) => {
    const paths = s[KEYS.staticPaths]
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    let logged = -1;
    return StaticEmbedder.load(paths, {
      onProgress: (read, total) => {
        const tenth = Math.floor((read / total) * 10);
        if (tenth <= logged) return;
        logged = tenth;
        log.info(`loading word vectors: ${tenth * 10}% (${mb(read)} of ${mb(total)} MB)`);
      },
    });
  });
}

export async function selectEmbedder(
  config: Pick<ConfigRegistry, "get">,
  opts: SelectOptions,
): Promise<{ provider: EmbeddingProvider; status: EmbeddingStatus }> {
  const { log } = opts;
  let registry = opts.registry;
  if (!registry) {
    registry = new EmbeddingRegistry();
    registerBuiltinEmbedders(registry, log);
  }
  const settings: Record<string, string> = {};
  for (const key of Object.values(KEYS)) settings[key] = config.get(key) ?? "";
  const chosen = settings[KEYS.provider] || "auto";
  const degraded: EmbeddingStatus["degraded"] = [];
  const fail = (tier: string, reason: string) => {
    log.warn(`embedding tier ${tier} unavailable, falling back: ${reason}`);
    opts.onSystemEvent?.({ kind: "embedding_tier_failed", tier, reason });
  };

  for (const tier of candidates(chosen)) {
    const required = REQUIRED[tier];
    // Under auto an unconfigured tier is simply absent; a tier chosen by name must say what it lacks.
    if (required && !settings[required]) {
      degraded.push({ tier, reason: `not configured: set ${required}` });
      if (tier === chosen) fail(tier, `not configured: set ${required}`);
      continue;
    }
    let provider: EmbeddingProvider;
    try {
      provider = await registry.create(tier, settings);
    } catch (err) {
      const reason = errorMessage(err);
      degraded.push({ tier, reason });
      fail(tier, reason);
      continue;
    }
    const { fingerprint, dimension } = provider.info();
    const status: EmbeddingStatus = { active: tier, fingerprint, dimension, degraded };
    const unused = degraded.length > 0 ? `; not in use: ${describe(degraded)}` : "";
    log.info(`embedding tier ${tier} active (${fingerprint}, ${dimension} dimensions)${unused}`);
    opts.onSystemEvent?.({ kind: "embedding_tier", ...status });
    return { provider, status };
  }
  // Unreachable while lexical is registered, as it is by default: it has no way to fail.
  throw new EmbeddingError({
    code: "embedding_unavailable",
    message: `no embedding tier could be used: ${describe(degraded)}; set core.embedding.provider to lexical`,
  });
}

function describe(degraded: EmbeddingStatus["degraded"]): string {
  return degraded.map((d) => `${d.tier}: ${d.reason}`).join("; ");
}

/** `auto` → every built-in tier; a named one → it, then the built-in tiers below it (all of them for a plugin's). */
function candidates(chosen: string): string[] {
  if (chosen === "auto") return [...TIER_ORDER];
  const at = (TIER_ORDER as readonly string[]).indexOf(chosen);
  return [chosen, ...TIER_ORDER.slice(at + 1)];
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(0);
}
