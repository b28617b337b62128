/**
 * The document layer's LLM tools (inventory §3.6): doc_query brings archived conversations back into the
 * context window (consuming them from the document layer, as the original does), doc_commit stores a
 * note the model wants kept verbatim.
 *
 * Restoring is synchronous work inside the turn (each turn re-inserted and re-indexed: ~0.15 ms a short
 * turn, ~0.5 ms a KB; 1000 turns took 200–550 ms), and the window keeps only max_context_size events at the
 * next prune anyway, so one doc_query restores at most RESTORE_LIMITS (≈ 40–60 ms of work): the best documents
 * that fit, whole (a document is never split). The ones that do not fit stay in the store; the best of them
 * is shown in the result with its best-matching turns, and the result says so.
 */
import type { ToolDef, ToolHandler } from "@homeagent/sdk";
import { HomeAgentError } from "../util/errors.js";
import type { DocStore } from "./documents/documents.js";
import { DOC_LIMITS } from "./documents/schema.js";
import { turnLine } from "./event-text.js";
import type { RelevanceContext } from "./window/context.js";

export interface DocTool {
  def: ToolDef;
  handler: ToolHandler;
}

/** Characters of one document shown in doc_query's result; the whole text is back in the window anyway. */
const SHOWN_CHARS = 4_000;

/** What one doc_query brings back into the window (about 40–60 ms of work at most). */
export const RESTORE_LIMITS = { turns: 200, chars: 30_000 } as const;

/** Matching turns shown from a document too large to restore. */
const EXCERPT_TURNS = 5;

export function docTools(context: RelevanceContext, docs: DocStore): DocTool[] {
  return [
    {
      def: {
        name: "doc_query",
        description:
          "Bring archived conversations and documents back into the conversation: the best matches leave the " +
          "document store and return to the context window at their original time (as cold_storage), so the " +
          "following turns see them. Use it when the related-memory section is not enough. One call restores " +
          `at most ${RESTORE_LIMITS.turns} turns (${RESTORE_LIMITS.chars} characters); a longer document stays ` +
          "archived and only its best-matching turns are shown (notRestored).",
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
        if (!query) throw new HomeAgentError({ code: "invalid_argument", message: "query must not be empty" });
        const topK = args.top_k === undefined ? 3 : Number(args.top_k);
        if (!Number.isInteger(topK) || topK < 1 || topK > DOC_LIMITS.topK)
          throw new HomeAgentError({
            code: "invalid_argument",
            message: `top_k must be an integer from 1 to ${DOC_LIMITS.topK}`,
          });
        const plan = await planRestore(docs, query, topK);
        const { docs: found, eventIds } =
          plan.take > 0 ? await context.recallDocs(query, plan.take) : { docs: [], eventIds: [] };
        const left = plan.best.filter((r) => !found.some((d) => d.id === r.docId));
        return {
          count: found.length,
          restoredEvents: eventIds.length,
          documents: found.map((d) => ({
            id: d.id,
            summary: d.summary,
            source: d.source,
            content: clip(d.content),
          })),
          ...(left.length > 0 ? leftBehind(docs, left) : {}),
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

interface Ranked {
  docId: string;
  turnIds: number[];
}

interface Size {
  turns: number;
  chars: number;
}

/**
 * How many of the best documents to restore: recallDocs(query, k) restores whole the documents of
 * rank(query, k), so the plan ranks exactly so and lowers k until every ranked document fits
 * RESTORE_LIMITS. `best` is the first ranking (top_k), to tell the model what stayed behind.
 */
async function planRestore(docs: DocStore, query: string, topK: number): Promise<{ take: number; best: Ranked[] }> {
  const sizes = new Map<string, Size>();
  const sizeOfDoc = (id: string) => {
    const known = sizes.get(id);
    if (known) return known;
    const size = sizeOf(docs, id);
    sizes.set(id, size);
    return size;
  };
  let best: Ranked[] | null = null;
  for (let k = topK; k > 0; ) {
    const ranked = await docs.rank(query, k);
    best ??= ranked;
    let turns = 0;
    let chars = 0;
    let fit = 0;
    for (const r of ranked) {
      const size = sizeOfDoc(r.docId);
      turns += size.turns;
      chars += size.chars;
      if (turns > RESTORE_LIMITS.turns || chars > RESTORE_LIMITS.chars) break;
      fit++;
    }
    if (fit === ranked.length) return { take: fit, best };
    k = fit;
  }
  return { take: 0, best: best ?? [] };
}

/** Window events and characters a document becomes when restored (a manual one: one event, its text). */
function sizeOf(docs: DocStore, docId: string): Size {
  const turns = docs.turns(docId);
  if (turns.length > 0) {
    return { turns: turns.length, chars: turns.reduce((n, t) => n + t.input.length + t.response.length, 0) };
  }
  const doc = docs.get(docId);
  return doc ? { turns: 1, chars: doc.content.length } : { turns: 0, chars: 0 };
}

/**
 * The result's account of the best documents left in the store: how many, and the first of them with its
 * best-matching turns (or, a manual document, its start).
 */
function leftBehind(docs: DocStore, left: readonly Ranked[]): { notRestored: Record<string, unknown> } {
  const first = left[0];
  const doc = docs.get(first.docId);
  const size = sizeOf(docs, first.docId);
  const lines = first.turnIds.slice(0, EXCERPT_TURNS).flatMap((id) => {
    const t = docs.turnById(id);
    return t ? [turnLine(t)] : [];
  });
  return {
    notRestored: {
      documents: left.length,
      reason:
        `one doc_query restores at most ${RESTORE_LIMITS.turns} turns and ${RESTORE_LIMITS.chars} characters, ` +
        "whole documents only; these stay in the store. The best of them is shown below with its best-matching " +
        "turns; ask again with a narrower query to bring others back.",
      first: {
        id: first.docId,
        summary: doc?.summary ?? "",
        turns: size.turns,
        chars: size.chars,
        excerpt: clip(lines.length > 0 ? lines.join("\n\n") : (doc?.content ?? "")),
      },
    },
  };
}

function clip(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}
