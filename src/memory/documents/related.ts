/**
 * The related-memory prompt section, where HomeAgent goes beyond the original: instead of generated
 * summaries of related documents, the best-ranked archived turns and document excerpts come back
 * VERBATIM, each with its date in the user's zone, together with the archived turns just before and after
 * each hit — a question's evidence often sits next to the best match, not in it. Time words in the query
 * ("last week", "2023年5月") boost what falls in that range without dropping the rest.
 *
 * Cost per call: one search (two when the query names a time range), then the hits are placed best first
 * in one read transaction; their rows and neighbours are read a few hits at a time (one statement through
 * the time index each), and reading stops when the budget is spent — the section is full after about 14
 * hits in bench/memory.ts, so most of the 40 asked for are never read.
 */

import type { PreparedQuery, SearchHit, SearchIndex } from "../../retrieval/search.js";
import { formatInZone } from "../../util/time-zone.js";
import { parseTimeQuery, type TimeRange } from "../time-query.js";
import type { DocStore, DocTurn } from "./documents.js";
import { type Excerpt, excerptCost, RelatedPacker } from "./related-pack.js";

export { RELATED_HEADER } from "./related-pack.js";

export interface RelatedDeps {
  index: Pick<SearchIndex, "search" | "prepare" | "db" | "tsSpan">;
  docs: Pick<DocStore, "turnsAroundMany">;
}

export interface RelatedOptions {
  /** Item ids already in the prompt (e.g. `ctx:…`, or `turn:…` re-inserted elsewhere): never repeated. */
  exclude: ReadonlySet<string>;
  /** The user's IANA zone: excerpt dates and time words are read in it. */
  zone: string;
  now: number;
  /** Search hits considered (default 40). */
  k?: number;
  /** Archived turns shown before and after each hit (default 1). */
  neighbours?: number;
}

const KINDS = ["turn", "doc"];
const DEFAULT_K = 40;
/** Hits whose rows are read together: a pass rarely needs more than two such reads. */
const LOOK_UP = 8;
/** Below this many tokens left, no excerpt is worth starting. */
const MIN_EXCERPT_TOKENS = 16;
/** A hit may take at most this share of the budget, a neighbour a smaller one: one long paste must not crowd out the rest. */
const HIT_SHARE = 0.5;
const NEIGHBOUR_SHARE = 0.25;

/** The related-memory section for `q`, at most `budgetTokens` tokens (estimateTokens); "" when nothing fits. */
export async function relatedMemory(
  deps: RelatedDeps,
  q: string | PreparedQuery,
  budgetTokens: number,
  opts: RelatedOptions,
): Promise<string> {
  const packer = new RelatedPacker(budgetTokens);
  if (packer.left < MIN_EXCERPT_TOKENS) return "";
  const text = typeof q === "string" ? q : q.text;
  const range = parseTimeQuery(text, { now: opts.now, zone: opts.zone });
  const query = typeof q === "string" ? await deps.index.prepare(q) : q;
  const fill = new Filler(deps.docs, packer, opts, budgetTokens, new Set());
  const hits = await rankedHits(deps.index, query, range, opts.k ?? DEFAULT_K, opts.exclude);
  deps.index.db.transaction(() => {
    for (let at = 0; at < hits.length && packer.left >= MIN_EXCERPT_TOKENS; at += LOOK_UP) {
      const some = hits.slice(at, at + LOOK_UP);
      fill.lookUp(some);
      for (const [i, hit] of some.entries()) {
        if (packer.left < MIN_EXCERPT_TOKENS) return;
        if (hit.kind === "turn") fill.turn(hit, at + i);
        else fill.doc(hit, at + i);
      }
    }
  })();
  return packer.render();
}

/**
 * Turn and document hits, best first, minus the excluded. With a time range, a second search inside the
 * range brings in matches the plain search ranked too low, and every hit inside the range is boosted by
 * the range's strength; hits outside stay, so a wrong guess about time costs rank, not recall. A range that holds every turn and document ("today" to a new user)
 * would find the plain search's best again and boost them all alike: it is not searched.
 */
async function rankedHits(
  index: RelatedDeps["index"],
  query: PreparedQuery,
  range: TimeRange | null,
  k: number,
  exclude: ReadonlySet<string>,
): Promise<SearchHit[]> {
  const within = range && !holdsAll(range, index.tsSpan(KINDS)) ? range : null;
  const [all, inRange] = await Promise.all([
    index.search(query, { k, filter: { kind: KINDS } }),
    within
      ? index.search(query, { k: Math.ceil(k / 2), filter: { kind: KINDS, since: within.since, until: within.until } })
      : Promise.resolve([]),
  ]);
  const best = new Map<string, { hit: SearchHit; score: number }>();
  for (const hit of [...all, ...inRange]) {
    if (exclude.has(hit.id)) continue;
    const score = hit.score * boost(within, hit.ts);
    const prev = best.get(hit.id);
    if (!prev || score > prev.score) best.set(hit.id, { hit, score });
  }
  return [...best.values()].sort((a, b) => b.score - a.score).map((b) => b.hit);
}

function holdsAll(range: TimeRange, span: { min: number; max: number } | null): boolean {
  return span === null || (range.since <= span.min && range.until >= span.max);
}

function boost(range: TimeRange | null, ts: number): number {
  return range && ts >= range.since && ts <= range.until ? 1 + range.strength : 1;
}

/** Places one hit at a time: the hit first (cut if it must be), then its neighbours while they fit. */
class Filler {
  /** Turn id → the turn and its neighbours, for the hits being placed (lookUp). */
  private runs = new Map<number, DocTurn[]>();

  constructor(
    private readonly docs: RelatedDeps["docs"],
    private readonly packer: RelatedPacker,
    private readonly opts: RelatedOptions,
    private readonly budget: number,
    /** Texts already placed: the same words archived twice are shown once. */
    private readonly seen: Set<string>,
  ) {}

  /** Reads the runs (hit and neighbours) of every turn among `hits`, in one look-up. */
  lookUp(hits: readonly SearchHit[]): void {
    const ids = hits.filter((h) => h.kind === "turn").map(turnIdOf);
    const n = this.opts.neighbours ?? 1;
    this.runs = this.docs.turnsAroundMany(
      ids.filter((id) => Number.isSafeInteger(id)),
      n,
      n,
    );
  }

  turn(hit: SearchHit, rank: number): void {
    const id = turnIdOf(hit);
    const run = this.runs.get(id) ?? [];
    const at = run.findIndex((t) => t.id === id);
    if (at < 0) return;
    if (!this.place(run[at], rank, this.budget * HIT_SHARE, true)) return;
    // Outwards from the hit, one side at a time, each side stopping at its first turn that does not fit.
    let before = at - 1;
    let after = at + 1;
    while (before >= 0 || after < run.length) {
      if (before >= 0) before = this.place(run[before], rank, this.budget * NEIGHBOUR_SHARE, false) ? before - 1 : -1;
      if (after < run.length) {
        after = this.place(run[after], rank, this.budget * NEIGHBOUR_SHARE, false) ? after + 1 : run.length;
      }
    }
    for (let i = 1; i < run.length; i++) this.packer.link(turnKey(run[i - 1]), turnKey(run[i]));
  }

  doc(hit: SearchHit, rank: number): void {
    const text = hit.text.trim();
    if (!text || this.seen.has(text)) return;
    const e: Excerpt = {
      key: hit.id,
      ts: hit.ts,
      seq: 0,
      text: `[${dateOf(hit.ts, this.opts.zone)}] document: ${text}`,
    };
    if (this.packer.addCut(e, rank, this.budget * HIT_SHARE)) this.seen.add(text);
  }

  /** Places one archived turn; a hit may be cut to fit, a neighbour only whole. True if it is in the section. */
  private place(t: DocTurn, rank: number, maxTokens: number, cut: boolean): boolean {
    const key = turnKey(t);
    if (this.packer.has(key)) return true;
    if (this.opts.exclude.has(key)) return false;
    const words = `${t.input}\u0000${t.response}`;
    if (this.seen.has(words)) return false;
    const e: Excerpt = { key, ts: t.ts, seq: t.id, text: renderTurn(t, this.opts.zone) };
    const ok = cut
      ? this.packer.addCut(e, rank, maxTokens)
      : excerptCost(e.text) <= maxTokens && this.packer.add(e, rank);
    if (ok) this.seen.add(words);
    return ok;
  }
}

const turnKey = (t: { id: number }) => `turn:${t.id}`;
const turnIdOf = (hit: SearchHit) => Number(hit.id.slice("turn:".length));

/** `2023-05-08 13:56` in the user's zone. */
function dateOf(ts: number, zone: string): string {
  return formatInZone(ts, zone).slice(0, 16);
}

/** One archived turn verbatim: what was said to the agent (by source) and what it answered. */
export function renderTurn(t: Pick<DocTurn, "ts" | "source" | "input" | "response">, zone: string): string {
  const head = `[${dateOf(t.ts, zone)}]`;
  if (!t.input) return `${head} agent: ${t.response}`;
  return t.response ? `${head} ${t.source}: ${t.input}\n  → ${t.response}` : `${head} ${t.source}: ${t.input}`;
}
