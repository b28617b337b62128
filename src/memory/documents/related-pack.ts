/**
 * Packing the related-memory section: excerpts arrive best first and are kept while they fit the token
 * budget; excerpts known to follow each other in time (a hit and its neighbouring turns) form one group,
 * rendered oldest first, so the model reads a stretch of conversation as it happened. Pure: no database,
 * so the budget rule is tested on its own. The rendered text never exceeds the budget (estimateTokens).
 */
import { estimateTokens } from "../../kernel/budget.js";

export const RELATED_HEADER = "【相关记忆 / related memory】(verbatim, dated)";
const CUT_MARK = "…";

export interface Excerpt {
  /** Unique: the search item id (`turn:12`, `doc:doc_…#0`). */
  key: string;
  ts: number;
  /** Tie-break between excerpts of the same ts (e.g. a turn's row id). */
  seq: number;
  /** The rendered excerpt, date included; may span lines. */
  text: string;
}

interface Placed extends Excerpt {
  rank: number;
  cost: number;
}

/** What an excerpt costs: its text plus the line breaks around it (group separators included). */
export function excerptCost(text: string): number {
  return estimateTokens(`${text}\n\n`);
}

/** `text` cut at the end (with "…") so that its cost is at most `maxTokens`; "" if nothing fits. */
export function cutToTokens(text: string, maxTokens: number): string {
  if (excerptCost(text) <= maxTokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (excerptCost(text.slice(0, mid) + CUT_MARK) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  // Never split a surrogate pair.
  const end = lo > 0 && /[\ud800-\udbff]/.test(text[lo - 1]) ? lo - 1 : lo;
  return end > 0 ? text.slice(0, end).trimEnd() + CUT_MARK : "";
}

export class RelatedPacker {
  private readonly placed = new Map<string, Placed>();
  private readonly parent = new Map<string, string>();
  private used: number;

  constructor(private readonly budget: number) {
    this.used = estimateTokens(`${RELATED_HEADER}\n`);
  }

  /** Tokens still free. */
  get left(): number {
    return this.budget - this.used;
  }

  get size(): number {
    return this.placed.size;
  }

  has(key: string): boolean {
    return this.placed.has(key);
  }

  /** Adds the excerpt if it fits whole; `rank` orders groups (lower = better). */
  add(e: Excerpt, rank: number): boolean {
    if (this.placed.has(e.key)) return true;
    const cost = excerptCost(e.text);
    if (cost > this.left) return false;
    this.placed.set(e.key, { ...e, rank, cost });
    this.parent.set(e.key, e.key);
    this.used += cost;
    return true;
  }

  /** Adds the excerpt, cut to what is left (and to `maxTokens`); false if not even a cut version fits. */
  addCut(e: Excerpt, rank: number, maxTokens = this.left): boolean {
    const text = cutToTokens(e.text, Math.min(maxTokens, this.left));
    return text !== "" && this.add({ ...e, text }, rank);
  }

  /** Records that `a` and `b` are adjacent in time: they end up in one group. */
  link(a: string, b: string): void {
    if (!this.placed.has(a) || !this.placed.has(b)) return;
    this.parent.set(this.root(a), this.root(b));
  }

  /** Header, then groups best first, each oldest first; "" when nothing was placed. */
  render(): string {
    if (this.placed.size === 0) return "";
    const groups = new Map<string, Placed[]>();
    for (const p of this.placed.values()) {
      const root = this.root(p.key);
      const g = groups.get(root);
      if (g) g.push(p);
      else groups.set(root, [p]);
    }
    const ordered = [...groups.values()]
      .map((g) => ({ rank: Math.min(...g.map((p) => p.rank)), lines: g.sort((a, b) => a.ts - b.ts || a.seq - b.seq) }))
      .sort((a, b) => a.rank - b.rank);
    // Within budget: estimateTokens of a concatenation is at most the sum over its parts, and each excerpt
    // was charged for two line breaks, more than the separators it gets.
    return [RELATED_HEADER, ordered.map((g) => g.lines.map((p) => p.text).join("\n")).join("\n\n")].join("\n");
  }

  private root(key: string): string {
    let k = key;
    for (let p = this.parent.get(k); p !== undefined && p !== k; p = this.parent.get(k)) k = p;
    return k;
  }
}
