/**
 * Indexer (inventory §5.4): what the graph contributes to the prompt — the 【记忆索引】 block. It finds the
 * entities a message is about (one search of the `ent:` items: by vector and by the message's words),
 * walks two hops, and writes their names and the facts that fit the budget. What a memory tool already
 * fetched in this turn is left out (markRecalled), so the model never pays twice for the same facts.
 *
 * Cost: it runs on every user turn, so it asks the shared index once (the query is prepared once per
 * turn) and scans entity names for the keywords (a LIKE over every entity, ≈ 1 ms at 10k entities) only
 * when the index matched nothing — a keyword inside a longer name ("book" in "notebook"). An empty graph
 * (a new user's, before the first distillation) is not asked at all.
 */
import { cjkRuns } from "../../embedding/text.js";
import { estimateTokens, firstThatFit } from "../../kernel/budget.js";
import type { PreparedQuery, SearchHit, SearchIndex } from "../../retrieval/search.js";
import { ENTITY_KIND, type Entity, entityIdOfItem, type GraphDB } from "./graph.js";
import { runes } from "./rules.js";

export interface IndexerOptions {
  /**
   * Cosine a vector-only entity match (no keyword shared with the message) needs to count; it depends on
   * the embedder, and without a floor every message would "match" its five nearest entities. Default 0.5.
   */
  minSimilarity?: number;
  /** Hops walked from the matched entities (default 2). */
  depth?: number;
}

/** Entities the index may name as the walk's starting points. */
const ENTITY_MATCHES = 8;
const MAX_KEYWORDS = 5;
const SHOWN_NAMES = 5;
/** Caps of the walk behind one prompt block: more than any budget can show. */
const MAX_ENTITIES = 60;
const MAX_RELATIONS = 120;
/** Turns whose recalled names are remembered; a turn that never ends must not grow this forever. */
const MAX_TURNS = 64;

const HEAD = "【记忆索引】";
const TAIL = " | 需更多细节请用 memory_recall 查询";

export class Indexer {
  private readonly recalled = new Map<string, Set<string>>();
  private readonly minSimilarity: number;
  private readonly depth: number;

  constructor(
    private readonly graph: GraphDB,
    private readonly index: SearchIndex,
    opts: IndexerOptions = {},
  ) {
    this.minSimilarity = opts.minSimilarity ?? 0.5;
    this.depth = opts.depth ?? 2;
  }

  /** The 【记忆索引】 block for this message within `budgetTokens`, or "" when the graph knows nothing relevant. */
  async buildContext(q: PreparedQuery, budgetTokens: number, requestId: string): Promise<string> {
    if (budgetTokens <= 0 || !this.graph.hasEntities()) return "";
    const hits = await this.index.search(q, { k: ENTITY_MATCHES, filter: { kind: ENTITY_KIND } });
    const seeds = hits
      .filter((h) => h.bm25 > 0 || (h.vector ?? 0) >= this.minSimilarity)
      .flatMap((h) => this.nameOf(h));
    const keywords = seeds.length > 0 ? [] : queryKeywords(q.tokens);
    if (seeds.length === 0 && keywords.length === 0) return "";
    const found = this.graph.recall(keywords, seeds, this.depth, {
      maxEntities: MAX_ENTITIES,
      maxRelations: MAX_RELATIONS,
    });
    const skip = this.recalled.get(requestId);
    const shown = (name: string) => !skip?.has(name.toLowerCase());
    const entities = found.entities.filter((e) => shown(e.name));
    if (entities.length === 0) return "";
    const facts = unique([
      ...found.traits.filter((t) => shown(t.entity)).map((t) => `${t.entity} ${t.trait} ${t.value}`),
      ...found.relations
        .filter((r) => shown(r.subject) && shown(r.object))
        .map((r) => `${r.subject} ${r.relation} ${r.object}`),
    ]);
    return render(entities, facts, budgetTokens);
  }

  /** Names a tool already returned in this turn: they stay out of this turn's block. */
  markRecalled(requestId: string, names: readonly string[]): void {
    let set = this.recalled.get(requestId);
    if (!set) {
      if (this.recalled.size >= MAX_TURNS) this.recalled.delete(this.recalled.keys().next().value as string);
      set = new Set();
      this.recalled.set(requestId, set);
    }
    for (const n of names) set.add(n.trim().toLowerCase());
  }

  endTurn(requestId: string): void {
    this.recalled.delete(requestId);
  }

  private nameOf(hit: SearchHit): string[] {
    if (typeof hit.meta.name === "string") return [hit.meta.name];
    const id = entityIdOfItem(hit.id);
    const entity = id === null ? null : this.graph.entityById(id);
    return entity ? [entity.name] : [];
  }
}

/**
 * Up to five keywords of the message for the name match: the longest tokens (the most specific; a short
 * one such as "go" would match "Google" and "Chicago"), in message order. Latin tokens need three
 * characters, CJK ones two.
 */
export function queryKeywords(tokens: readonly string[]): string[] {
  const candidates = [...new Set(tokens)].filter((t) => (cjkRuns(t).length > 0 ? runes(t) >= 2 : t.length >= 3));
  const keep = new Set(
    [...candidates]
      .sort((a, b) => weight(b) - weight(a) || candidates.indexOf(a) - candidates.indexOf(b))
      .slice(0, MAX_KEYWORDS),
  );
  return candidates.filter((t) => keep.has(t));
}

/** CJK characters carry about as much as a Latin word of three letters. */
function weight(token: string): number {
  const cjk = cjkRuns(token).join("").length;
  return cjk * 3 + (token.length - cjk);
}

function render(entities: Entity[], facts: string[], budget: number): string {
  const top = [...entities]
    .sort((a, b) => b.mentionCount - a.mentionCount)
    .slice(0, SHOWN_NAMES)
    .map((e) => (e.type === "Concept" ? e.name : `${e.name}(${e.type})`));
  const head = `${HEAD} 关联 ${entities.length} 个记忆实体，高频：${top.join("、")}`;
  const fixed = estimateTokens(head + TAIL);
  if (fixed > budget) return "";
  const sep = "; ";
  const intro = " 索引: ";
  const room = budget - fixed - estimateTokens(intro);
  const fit = room > 0 ? firstThatFit(facts, room, (f) => estimateTokens(f + sep)) : [];
  return fit.length > 0 ? `${head}${intro}${fit.join(sep)}${TAIL}` : `${head}${TAIL}`;
}

function unique(lines: string[]): string[] {
  const seen = new Set<string>();
  return lines.filter((l) => {
    const key = l.toLowerCase();
    return !seen.has(key) && seen.add(key);
  });
}
