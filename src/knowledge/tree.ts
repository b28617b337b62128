/**
 * The knowledge folder as a tree of categories and items (the knowledge API's `tree`), read from disk as
 * it is now, with the same rules as the index's scan: a folder holding content.md is an item, any other
 * folder a category, dot folders and links are skipped. A folder tree made by hand can be huge, so the walk
 * stops with a clear error past a node limit rather than building an answer no page could show.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { KnowledgeNode } from "@homeagent/sdk";
import { HomeAgentError } from "../util/errors.js";
import { contentFile } from "./paths.js";

export const MAX_TREE_NODES = 10_000;

export function knowledgeTree(root: string, maxNodes = MAX_TREE_NODES): KnowledgeNode[] {
  let count = 0;
  const walk = (dir: string, segments: string[]): KnowledgeNode[] => {
    const nodes: KnowledgeNode[] = [];
    const entries = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
    for (const name of entries) {
      if (++count > maxNodes) {
        throw new HomeAgentError({
          code: "knowledge_tree_too_large",
          message: `the knowledge folder ${root} holds more than ${maxNodes} categories and items; search it instead, or split it`,
        });
      }
      const path = [...segments, name];
      const sub = join(dir, name);
      if (statSync(contentFile(sub), { throwIfNoEntry: false })?.isFile()) {
        nodes.push({ name, path: path.join("/"), kind: "item" });
      } else {
        nodes.push({ name, path: path.join("/"), kind: "category", children: walk(sub, path) });
      }
    }
    return nodes;
  };
  return walk(root, []);
}
