/**
 * The daemon's retrieval layer: picks the embedding tier from `core.embedding.*` (each missing tier is
 * logged and announced, never faked) and opens the knowledge base over it, whose tools the agent gets.
 */
import { join } from "node:path";
import type { EmbeddingStatusInfo, Logger } from "@homeagent/sdk";
import type { ConfigRegistry } from "../config/registry.js";
import { selectEmbedder } from "../embedding/tiers.js";
import { KnowledgeBase } from "../knowledge/base.js";
import { type KnowledgeTool, knowledgeTools } from "../knowledge/tools.js";

export interface Retrieval {
  embedding: EmbeddingStatusInfo;
  knowledgeTools: KnowledgeTool[];
  close(): Promise<void>;
}

export async function startRetrieval(
  config: ConfigRegistry,
  dataDir: string,
  log: Logger,
  announce: (payload: Record<string, unknown>) => void,
): Promise<Retrieval> {
  const { provider, status } = await selectEmbedder(config, { log, onSystemEvent: announce });
  const root = config.get("core.knowledge.path") || join(dataDir, "knowledge");
  const kb = new KnowledgeBase(root, {
    embedder: provider,
    onError: (err) => log.warn(`knowledge base: ${err.message}`),
  });
  log.info(`knowledge base at ${root}`);
  return { embedding: status, knowledgeTools: knowledgeTools(kb), close: () => kb.close() };
}
