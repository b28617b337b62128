/**
 * The daemon's retrieval layer: picks the embedding tier from `core.embedding.*` (each missing tier is
 * logged and announced, never faked) and opens the knowledge base over it, whose tools the agent gets.
 * Changing an embedding setting re-selects the tier; a new fingerprint re-embeds in the background.
 */
import { join } from "node:path";
import type { EmbeddingStatusInfo, Logger } from "@homeagent/sdk";
import type { ConfigRegistry } from "../config/registry.js";
import type { EmbeddingRegistry } from "../embedding/spi.js";
import { selectEmbedder } from "../embedding/tiers.js";
import { KnowledgeBase } from "../knowledge/base.js";
import { type KnowledgeTool, knowledgeTools } from "../knowledge/tools.js";

export interface Retrieval {
  embedding(): EmbeddingStatusInfo;
  knowledgeTools: KnowledgeTool[];
  /** Settles when the latest re-selection of the embedding tier has finished. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** Before retrieval is up (plugins start first, so they can add embedding providers). */
export const EMBEDDING_PENDING: EmbeddingStatusInfo = {
  active: "starting",
  fingerprint: "",
  dimension: 0,
  degraded: [],
};

export async function startRetrieval(
  config: ConfigRegistry,
  registry: EmbeddingRegistry,
  dataDir: string,
  log: Logger,
  announce: (payload: Record<string, unknown>) => void,
): Promise<Retrieval> {
  offerRegisteredProviders(config, registry);
  const select = () => selectEmbedder(config, { log, onSystemEvent: announce, registry });
  const first = await select();
  let status = first.status;
  const root = config.get("core.knowledge.path") || join(dataDir, "knowledge");
  const kb = new KnowledgeBase(root, {
    embedder: first.provider,
    onError: (err) => log.warn(`knowledge base: ${err.message}`),
  });
  log.info(`knowledge base at ${root}`);

  let latest = Promise.resolve();
  const reselect = async () => {
    const { provider, status: next } = await select();
    kb.index.setEmbedder(provider);
    status = next;
  };
  const off = config.onChange((key) => {
    if (!key.startsWith("core.embedding.") && key !== "core.agent.embedding_model_path") return;
    latest = latest.then(reselect).catch((err) => log.warn(`re-selecting the embedding tier failed: ${err.message}`));
  });
  return {
    embedding: () => status,
    knowledgeTools: knowledgeTools(kb),
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
