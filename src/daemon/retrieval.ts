/**
 * The daemon's retrieval layer: opens the knowledge base (whose tools the agent gets) and picks the
 * embedding tier from `core.embedding.*` in the background (each missing tier is logged and announced,
 * never faked). Changing an embedding setting re-selects the tier; a new fingerprint re-embeds.
 */
import { join } from "node:path";
import type { EmbeddingStatusInfo, KnowledgeAPI, KnowledgeForgetReport, Logger } from "@homeagent/sdk";
import type { ConfigRegistry } from "../config/registry.js";
import type { EmbeddingProvider, EmbeddingRegistry } from "../embedding/spi.js";
import { selectEmbedder } from "../embedding/tiers.js";
import { knowledgeApi } from "../knowledge/api.js";
import { KnowledgeBase } from "../knowledge/base.js";
import { forgetKnowledge } from "../knowledge/forget.js";
import { type KnowledgeTool, knowledgeTools } from "../knowledge/tools.js";

export interface Retrieval {
  embedding(): EmbeddingStatusInfo;
  knowledgeTools: KnowledgeTool[];
  /** What plugins see as `sdk.knowledge`. */
  knowledge: KnowledgeAPI;
  /** Forget's reach into the knowledge base: items mentioning every term, removed when asked (forget.ts). */
  forgetKnowledge(terms: readonly string[], remove: boolean): Promise<KnowledgeForgetReport & { index: string }>;
  /** Settles when the latest selection of the embedding tier has finished. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** Until the first tier selection has finished. */
export const EMBEDDING_PENDING: EmbeddingStatusInfo = {
  active: "starting",
  fingerprint: "",
  dimension: 0,
  degraded: [],
};

export function startRetrieval(
  config: ConfigRegistry,
  registry: EmbeddingRegistry,
  dataDir: string,
  log: Logger,
  announce: (payload: Record<string, unknown>) => void,
  memory?: { setEmbedder(embedder: EmbeddingProvider | null): void },
): Retrieval {
  offerRegisteredProviders(config, registry);
  const root = config.get("core.knowledge.path") || join(dataDir, "knowledge");
  // Keyword search works at once; vectors join when the tier is chosen, which for large word-vector
  // files can take a while, so the daemon does not wait for it.
  const kb = new KnowledgeBase(root, { onError: (err) => log.warn(`knowledge base: ${err.message}`) });
  log.info(`knowledge base at ${root}`);

  let status = EMBEDDING_PENDING;
  const select = async () => {
    const chosen = await selectEmbedder(config, { log, onSystemEvent: announce, registry });
    kb.index.setEmbedder(chosen.provider);
    memory?.setEmbedder(chosen.provider);
    status = chosen.status;
  };
  const failed = (err: Error) => log.warn(`selecting the embedding tier failed: ${err.message}`);
  let latest = select().catch(failed);
  const off = config.onChange((key) => {
    if (!key.startsWith("core.embedding.") && key !== "core.agent.embedding_model_path") return;
    latest = latest.then(select).catch(failed);
  });
  return {
    embedding: () => status,
    knowledgeTools: knowledgeTools(kb),
    knowledge: knowledgeApi(kb),
    forgetKnowledge: async (terms, remove) => ({
      ...(await forgetKnowledge(kb, terms, remove)),
      index: kb.index.db.name,
    }),
    settled: () => latest,
    close: async () => {
      off();
      await latest;
      await kb.close();
    },
  };
}

/** Plugins may have added providers: make them choosable in the config center's select. */
function offerRegisteredProviders(config: ConfigRegistry, registry: EmbeddingRegistry): void {
  const def = config.def("core.embedding.provider");
  if (!def) return;
  const options = [...new Set([...(def.options ?? []), ...registry.names()])];
  config.registerDefs([{ ...def, options }]);
}
