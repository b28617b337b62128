/**
 * The tool definitions one turn offers the model. They are a prompt section with a budget like the others
 * (sections.ts): when every definition fits its allocation all are sent; when not, the turn offers a core
 * set plus the kernel tool `tool_search`, which finds tools by what they do and adds their definitions to
 * the offer for the next rounds of the same turn. A self-task offers exactly its allowlist.
 *
 * The core set, in this order, as far as it fits the allocation:
 * 1. `tool_search` itself;
 * 2. the memory tools the prompt's memory sections point to: memory_recall, doc_query, knowledge_search;
 * 3. tools used recently in the context window, newest first (what the conversation is about);
 * 4. the output tools of the turn's channel (`output_send__<channel>`) and `output_list_channels`;
 * then other tools in registration order, up to 70 % of the allocation: the last 30 % is kept free for the
 * definitions tool_search loads. A call to a registered tool that is not offered still runs (its arguments
 * are validated as always): trimming saves tokens, it is not a permission; only an allowlist refuses.
 */

import { estimateTokens } from "./budget.js";
import type { ToolSpec } from "./llm-spec.js";
import type { RegisteredTool, ToolRegistry } from "./tools.js";

export const TOOL_SEARCH = "tool_search";

export const TOOL_SEARCH_DEF = {
  name: TOOL_SEARCH,
  description:
    "Only some of your tools are listed in this request. Search the others by what you need (a few keywords, e.g. 'send file', 'weather', '提醒'); the matching tools' definitions are added so you can call them in your next step.",
  parameters: {
    type: "object",
    properties: { query: { type: "string", description: "What the tool should do, in a few keywords." } },
    required: ["query"],
  },
};

/** Memory tools the memory sections tell the model about. */
const MEMORY_TOOLS = ["memory_recall", "doc_query", "knowledge_search"];
/** Part of the tools allocation kept free for definitions tool_search loads. */
const LOAD_RESERVE = 0.3;
const SEARCH_LIMIT = 8;
const DESCRIPTION_CHARS = 200;
const NAMES_LISTED = 100;

/** One tool definition as the offer handles it. */
export interface OfferEntry {
  name: string;
  spec: ToolSpec;
  /** Tokens of the definition in the request's tool list (JSON, with its separator). */
  cost: number;
  description: string;
}

/** Brackets of the JSON list: with each entry's +1 for its separator, Σ cost + this bounds the list's estimate. */
const LIST_COST = 2;

/** The words of a text, lower-cased, for matching a tool_search query against tool names and descriptions. */
export type Words = (text: string) => readonly string[];

/**
 * The kernel's own word splitter: letters and digits in runs, each Han character a word. The daemon gives the
 * Agent the search engine's tokenizer instead (jieba for Chinese, stemmed English), so a query matches a
 * tool the way search matches a document.
 */
export const plainWords: Words = (text) =>
  text.toLowerCase().match(/\p{Script=Han}|(?:(?!\p{Script=Han})[\p{L}\p{N}])+/gu) ?? [];

export interface OfferOptions {
  /** A self-task's allowlist; absent = every registered tool. */
  allow?: ReadonlySet<string>;
  /** Tool names to offer first when trimming, after tool_search and the memory tools. */
  preferred: string[];
  channel: string;
  words: Words;
}

export class ToolOffer {
  private offered: OfferEntry[];
  private specsCache: ToolSpec[] | null = null;
  /** Every definition the turn may use except tool_search. */
  readonly total: number;
  readonly trimmed: boolean;

  private readonly allow: ReadonlySet<string> | undefined;
  private readonly words: Words;

  private constructor(
    private readonly candidates: OfferEntry[],
    private readonly budget: number,
    opts: OfferOptions,
  ) {
    this.allow = opts.allow;
    this.words = opts.words;
    const search = candidates.find((e) => e.name === TOOL_SEARCH);
    const others = candidates.filter((e) => e !== search);
    this.total = others.length;
    this.trimmed = listCost(others) > budget;
    this.offered = this.trimmed ? coreSet(search, others, budget, opts) : others;
  }

  /** The tools a turn may use, with the tokens their full definitions need. */
  static candidates(registry: ToolRegistry, allow?: ReadonlySet<string>): { entries: OfferEntry[]; need: number } {
    const entries = registry
      .all()
      .filter((t) => !allow || allow.has(t.def.name))
      .map(toEntry);
    return { entries, need: listCost(entries.filter((e) => e.name !== TOOL_SEARCH)) };
  }

  static offer(entries: OfferEntry[], budget: number, opts: OfferOptions): ToolOffer {
    return new ToolOffer(entries, budget, opts);
  }

  /** Exactly the definitions the next LLM request sends. */
  specs(): ToolSpec[] {
    this.specsCache ??= this.offered.map((e) => e.spec);
    return this.specsCache;
  }

  /** What the offered definitions cost: each one's count (computed once per definition) and the list's. */
  tokens(): number {
    return listCost(this.offered);
  }

  get count(): number {
    return this.offered.length;
  }

  /** False for a tool outside a self-task's allowlist: the call is refused. */
  allows(name: string): boolean {
    return !this.allow || this.allow.has(name);
  }

  /** Allowed tools, for the refusal message. */
  allowed(): string[] {
    return this.allow ? [...this.allow].sort() : [];
  }

  /** tool_search: the best matches for `query`, their definitions added to the offer as far as they fit. */
  search(query: string): string {
    const matches = rank(this.candidates, query, this.words);
    if (matches.length === 0) {
      const rest = this.candidates.filter((e) => !this.isOffered(e.name) && e.name !== TOOL_SEARCH);
      const names = rest.slice(0, NAMES_LISTED).map((e) => e.name);
      const more = rest.length > names.length ? `, … (${rest.length - names.length} more)` : "";
      return `No tool matches "${query}". Tools you can search for: ${names.join(", ") || "(none)"}${more}`;
    }
    const loaded: OfferEntry[] = [];
    const already: OfferEntry[] = [];
    const full: OfferEntry[] = [];
    let used = listCost(this.offered);
    for (const e of matches) {
      if (this.isOffered(e.name)) already.push(e);
      else if (used + e.cost <= this.budget) {
        this.offered.push(e);
        used += e.cost;
        loaded.push(e);
      } else full.push(e);
    }
    if (loaded.length > 0) this.specsCache = null;
    const lines: string[] = [];
    if (loaded.length > 0) lines.push("Loaded for this turn; call them directly:", ...loaded.map(line));
    if (already.length > 0) lines.push("Already available:", ...already.map(line));
    if (full.length > 0) {
      lines.push(
        "Found but not loaded (this request's tool budget is full; use the tools you have, or search more narrowly):",
        ...full.map(line),
      );
    }
    return lines.join("\n");
  }

  private isOffered(name: string): boolean {
    return this.offered.some((e) => e.name === name);
  }
}

/** A definition's entry, computed once: its cost (JSON and token estimate) was paid for every tool on every turn. */
const entries = new WeakMap<RegisteredTool["def"], OfferEntry>();

function toEntry(t: RegisteredTool): OfferEntry {
  let entry = entries.get(t.def);
  if (!entry) {
    entry = newEntry(t);
    entries.set(t.def, entry);
  }
  return entry;
}

function newEntry(t: RegisteredTool): OfferEntry {
  const spec: ToolSpec = {
    type: "function",
    function: { name: t.def.name, description: t.def.description, parameters: t.def.parameters },
  };
  return { name: t.def.name, spec, cost: estimateTokens(JSON.stringify(spec)) + 1, description: t.def.description };
}

function listCost(entries: OfferEntry[]): number {
  return entries.length === 0 ? 0 : entries.reduce((sum, e) => sum + e.cost, LIST_COST);
}

function coreSet(
  search: OfferEntry | undefined,
  others: OfferEntry[],
  budget: number,
  opts: OfferOptions,
): OfferEntry[] {
  const byName = new Map(others.map((e) => [e.name, e]));
  const order = [...MEMORY_TOOLS, ...opts.preferred, `output_send__${opts.channel}`, "output_list_channels"];
  const picked: OfferEntry[] = [];
  let used = LIST_COST;
  const take = (e: OfferEntry | undefined, limit: number) => {
    if (!e || picked.includes(e) || used + e.cost > limit) return;
    picked.push(e);
    used += e.cost;
  };
  take(search, budget);
  for (const name of order) take(byName.get(name), budget);
  const fill = Math.floor(budget * (1 - LOAD_RESERVE));
  for (const e of others) take(e, fill);
  return picked;
}

function rank(entries: OfferEntry[], query: string, split: Words): OfferEntry[] {
  const words = new Set(split(query));
  const exact = query.trim();
  if (words.size === 0 && !exact) return [];
  const scored = entries
    .filter((e) => e.name !== TOOL_SEARCH)
    .map((e, i) => ({ e, i, score: score(e, words, exact, split) }))
    .filter((s) => s.score > 0);
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return scored.slice(0, SEARCH_LIMIT).map((s) => s.e);
}

function score(e: OfferEntry, words: Set<string>, exact: string, split: Words): number {
  if (e.name === exact) return 100;
  const name = new Set(split(e.name.replace(/[_-]+/g, " ")));
  const description = new Set(split(e.description));
  let s = 0;
  for (const w of words) {
    if (name.has(w)) s += 3;
    if (description.has(w)) s += 1;
  }
  return s;
}

function line(e: OfferEntry): string {
  const d = e.description.length > DESCRIPTION_CHARS ? `${e.description.slice(0, DESCRIPTION_CHARS)}…` : e.description;
  return `- ${e.name}: ${d}`;
}
