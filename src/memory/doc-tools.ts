/**
 * The document layer's LLM tools (inventory §3.6): doc_query brings archived conversations back into the
 * context window (consuming them from the document layer, as the original does), doc_commit stores a
 * note the model wants kept verbatim.
 */
import type { ToolDef, ToolHandler } from "@homeagent/sdk";
import type { RelevanceContext } from "./context.js";
import { DOC_LIMITS } from "./doc-schema.js";
import type { DocStore } from "./documents.js";

export interface DocTool {
  def: ToolDef;
  handler: ToolHandler;
}

/** Characters of one document shown in doc_query's result; the whole text is back in the window anyway. */
const SHOWN_CHARS = 4_000;

export function docTools(context: RelevanceContext, docs: DocStore): DocTool[] {
  return [
    {
      def: {
        name: "doc_query",
        description:
          "Bring archived conversations and documents back into the conversation: the best matches leave the " +
          "document store and return to the context window at their original time (as cold_storage), so the " +
          "following turns see them. Use it when the related-memory section is not enough.",
        parameters: {
          type: "object",
          properties: {
            query: { type: "string", description: "What to look for (words, names, a question)." },
            top_k: {
              type: "integer",
              minimum: 1,
              maximum: DOC_LIMITS.topK,
              default: 3,
              description: "How many documents.",
            },
          },
          required: ["query"],
        },
      },
      handler: async (args) => {
        const query = String(args.query ?? "").trim();
        if (!query) throw new Error("query must not be empty");
        const topK = args.top_k === undefined ? 3 : Number(args.top_k);
        if (!Number.isInteger(topK) || topK < 1 || topK > DOC_LIMITS.topK)
          throw new Error(`top_k must be an integer from 1 to ${DOC_LIMITS.topK}`);
        const { docs: found, eventIds } = await context.recallDocs(query, topK);
        return {
          count: found.length,
          restoredEvents: eventIds.length,
          documents: found.map((d) => ({
            id: d.id,
            summary: d.summary,
            source: d.source,
            content: d.content.length > SHOWN_CHARS ? `${d.content.slice(0, SHOWN_CHARS)}…` : d.content,
          })),
        };
      },
    },
    {
      def: {
        name: "doc_commit",
        description:
          "Store a document in long-term memory, verbatim (a note, a summary the user asked you to keep). " +
          "It is found again by related memory and doc_query.",
        parameters: {
          type: "object",
          properties: {
            content: { type: "string", description: "The text to keep." },
            summary: { type: "string", description: "One line on what it is." },
            tags: { type: "array", items: { type: "string" }, description: "A few keywords." },
          },
          required: ["content"],
        },
      },
      handler: async (args) => {
        const tags = Array.isArray(args.tags) ? args.tags.map(String) : undefined;
        const doc = await docs.commit({
          content: String(args.content ?? ""),
          summary: args.summary === undefined ? undefined : String(args.summary),
          tags,
          source: "manual",
        });
        return { id: doc.id, summary: doc.summary, tags: doc.tags, status: "stored" };
      },
    },
  ];
}
