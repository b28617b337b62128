/**
 * The knowledge API (sdk.knowledge) over the KnowledgeBase: what a dashboard needs to browse and edit the
 * user's notes. Paths are taken exactly as the tree lists them (itemSegments), every one is checked to stay
 * inside the folder, items are at most 1 MiB, and a put resolves only once the index holds the new text, so
 * a search right after it finds it. Refusals are HomeAgentErrors with codes a server can map to statuses:
 * invalid_path, too_large, invalid_argument.
 */
import { readFileSync } from "node:fs";
import type { KnowledgeAPI, KnowledgeEntry, KnowledgeNode, KnowledgeSearchHit } from "@homeagent/sdk";
import { formatBytes } from "../util/bytes.js";
import { HomeAgentError } from "../util/errors.js";
import type { KnowledgeBase } from "./base.js";
import { itemSegments, KnowledgeNameError, KnowledgePathError } from "./paths.js";
import { knowledgeTree } from "./tree.js";

export const MAX_ITEM_BYTES = 1024 * 1024;
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 50;
const MAX_QUERY_CHARS = 4096;

export function knowledgeApi(kb: KnowledgeBase): KnowledgeAPI {
  const read = (path: string): KnowledgeEntry | null => {
    const segments = itemSegments(path);
    const found = guarded(path, () => kb.stat(segments));
    if (!found) return null;
    if (found.size > MAX_ITEM_BYTES) throw tooLarge(path, found.size, "edit it on disk");
    const content = readFileSync(found.file, "utf8");
    return { path: segments.join("/"), content, size: found.size, updatedAt: found.updatedAt };
  };

  return {
    tree: async (): Promise<KnowledgeNode[]> => knowledgeTree(kb.root),
    get: async (path) => read(path),
    put: async (path, content) => {
      const segments = itemSegments(path);
      if (typeof content !== "string") {
        throw new HomeAgentError({ code: "invalid_argument", message: "knowledge content must be a string" });
      }
      const bytes = Buffer.byteLength(content);
      if (bytes > MAX_ITEM_BYTES) throw tooLarge(path, bytes, "split it into several items");
      await guardedAsync(path, () => kb.write(segments, content));
      const entry = read(path);
      if (!entry) {
        throw new HomeAgentError({
          code: "not_found",
          message: `knowledge item ${path} was removed while it was saved`,
        });
      }
      return entry;
    },
    delete: async (path) => {
      const segments = itemSegments(path);
      return guarded(path, () => kb.remove(segments));
    },
    search: async (query, limit) => {
      if (typeof query !== "string") {
        throw new HomeAgentError({ code: "invalid_argument", message: "the search query must be a string" });
      }
      if (query.length > MAX_QUERY_CHARS) {
        throw new HomeAgentError({
          code: "too_large",
          message: `the search query is ${query.length} characters; at most ${MAX_QUERY_CHARS}`,
        });
      }
      if (!query.trim()) return [];
      const hits = await kb.search(query, searchLimit(limit));
      return hits.map((h): KnowledgeSearchHit => ({ path: h.path, score: h.score, preview: h.content }));
    },
  };
}

/** A limit above the maximum is cut to it; one that is no count at all is refused. */
function searchLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: `limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}, not ${limit}`,
    });
  }
  return Math.min(limit, MAX_SEARCH_LIMIT);
}

function tooLarge(path: string, bytes: number, hint: string): HomeAgentError {
  return new HomeAgentError({
    code: "too_large",
    message: `knowledge item ${path} is ${formatBytes(bytes)}; items may be at most ${formatBytes(MAX_ITEM_BYTES)}: ${hint}`,
  });
}

/** The knowledge base says what is wrong with a name in its own words; the API calls that a bad path. */
function guarded<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw asPathError(path, err);
  }
}

async function guardedAsync<T>(path: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asPathError(path, err);
  }
}

function asPathError(path: string, err: unknown): unknown {
  return err instanceof KnowledgeNameError ? new KnowledgePathError(path, err.reason, err) : err;
}
