/**
 * The knowledge base's LLM tools, as ToolDef + handler pairs for the tool registry:
 * knowledge_search, knowledge_create, knowledge_list.
 */
import type { ToolDef, ToolHandler } from "@homeagent/sdk";
import { HomeAgentError } from "../util/errors.js";
import type { KnowledgeBase } from "./base.js";

export interface KnowledgeTool {
  def: ToolDef;
  handler: ToolHandler;
}

/** Registered once the knowledge base is open; reserved before plugins start so none can take them. */
export const KNOWLEDGE_TOOL_NAMES = ["knowledge_search", "knowledge_create", "knowledge_list"];

export function knowledgeTools(kb: KnowledgeBase): KnowledgeTool[] {
  return [
    {
      def: {
        name: "knowledge_search",
        description:
          "Search the knowledge base (the user's curated notes and documents) by keywords and meaning. " +
          "Returns the best items with name, category, score and the first 200 characters of their content.",
        parameters: {
          type: "object",
          properties: {
            query: { type: "string", description: "What to look for." },
            top_k: { type: "integer", minimum: 1, maximum: 50, default: 5, description: "How many items." },
          },
          required: ["query"],
        },
      },
      handler: async (args) => {
        const topK = args.top_k === undefined ? 5 : Number(args.top_k);
        if (!Number.isInteger(topK) || topK < 1) {
          throw new HomeAgentError({ code: "invalid_argument", message: "top_k must be a positive integer" });
        }
        const results = await kb.search(String(args.query ?? ""), Math.min(topK, 50));
        return { results, count: results.length };
      },
    },
    {
      def: {
        name: "knowledge_create",
        description:
          'Save a knowledge item (replacing one of the same name). "/" in the name makes categories: ' +
          '"recipes/family soup" is the item "family_soup" in the category "recipes". ' +
          "Names are lower-cased; spaces become underscores.",
        parameters: {
          type: "object",
          properties: {
            name: { type: "string", description: 'Item name, optionally "category/sub/name".' },
            content: { type: "string", description: "Markdown content." },
          },
          required: ["name", "content"],
        },
      },
      handler: async (args) => {
        const { item, created } = await kb.create(String(args.name ?? ""), String(args.content ?? ""));
        return { ...item, status: created ? "created" : "updated" };
      },
    },
    {
      def: {
        name: "knowledge_list",
        description: 'List the knowledge base as a tree: items grouped by category ("" is the top level).',
        parameters: { type: "object", properties: {} },
      },
      handler: async () => {
        const categories = await kb.list();
        return { categories, total: categories.reduce((n, c) => n + c.items.length, 0) };
      },
    },
  ];
}
