/**
 * The prompt's sections and how one request's token budget is shared among them, so that no section can
 * silently squeeze out another (before, tool definitions were a fixed cost and memory took a flat 25 %:
 * with ~50 tools an 8k model got requests over its window and no memory at all).
 *
 * The budget is requestBudget(window) − the input message. Allocation:
 * 1. floors first, in priority order: each section gets min(floor × budget, its need);
 * 2. the rest by water-filling on the shares: every section that still needs more gets a part of what is
 *    left in proportion to its share, capped at its need; whatever a capped section did not take is shared
 *    again among the others, until the budget or every need is exhausted.
 *
 * | section        | priority | share | floor | need                                                       |
 * |----------------|---------:|------:|------:|------------------------------------------------------------|
 * | persona        | 1        | 0.10  | 0.05  | the system prompt (built-in or core.agent.system_prompt + personal_prompt) |
 * | output_rules   | 2        | 0.05  | 0.02  | current time, reply channel, other channels                |
 * | tools          | 3        | 0.20  | 0.10  | every tool definition of the turn (trimmed to a core set + tool_search above its allocation) |
 * | memory_index   | 4        | 0.10  | 0.05  | open-ended: the graph's 【记忆索引】 fills what it gets       |
 * | related_memory | 5        | 0.20  | 0.10  | open-ended: archived turns and documents, verbatim, dated  |
 * | timeline       | 6        | 0.25  | 0.10  | every row of the context window (newest first that fit)    |
 * | plugin_context | 7        | 0.10  | 0.03  | the messages pre_action handlers added (first that fit)    |
 *
 * Shares add up to 1 and floors to 0.45, so every floor always fits. A section without memory (no
 * MemoryContext, a self-task) needs 0, and its budget flows to the others.
 */
export const SECTION_NAMES = [
  "persona",
  "output_rules",
  "tools",
  "memory_index",
  "related_memory",
  "timeline",
  "plugin_context",
] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export interface SectionSpec {
  name: SectionName;
  /** 1 = served first when floors are handed out. */
  priority: number;
  /** Weight of the section when what is left after the floors is shared. */
  share: number;
  /** Guaranteed part of the budget (as a fraction of it), as far as the section needs it. */
  floor: number;
}

export const SECTIONS: readonly SectionSpec[] = [
  { name: "persona", priority: 1, share: 0.1, floor: 0.05 },
  { name: "output_rules", priority: 2, share: 0.05, floor: 0.02 },
  { name: "tools", priority: 3, share: 0.2, floor: 0.1 },
  { name: "memory_index", priority: 4, share: 0.1, floor: 0.05 },
  { name: "related_memory", priority: 5, share: 0.2, floor: 0.1 },
  { name: "timeline", priority: 6, share: 0.25, floor: 0.1 },
  { name: "plugin_context", priority: 7, share: 0.1, floor: 0.03 },
];

export type SectionTokens = Record<SectionName, number>;

/** An open-ended need: the section fills whatever it is given. */
export const OPEN_ENDED = Number.POSITIVE_INFINITY;

/** The floor of `name` for a budget, in tokens. */
export function floorOf(name: SectionName, budget: number): number {
  const spec = SECTIONS.find((s) => s.name === name);
  return spec ? Math.floor(spec.floor * Math.max(0, budget)) : 0;
}

/**
 * Tokens per section for `budget` and each section's need (tokens, or OPEN_ENDED). `specs` limits the
 * sharing to some sections (the others get 0); floors are fractions of `floorBase`, by default the budget.
 */
export function allocate(
  budget: number,
  needs: SectionTokens,
  specs: readonly SectionSpec[] = SECTIONS,
  floorBase = budget,
): SectionTokens {
  const ordered = [...specs].sort((a, b) => a.priority - b.priority);
  const total = Math.max(0, Math.floor(budget));
  const alloc = Object.fromEntries(SECTION_NAMES.map((n) => [n, 0])) as SectionTokens;
  let left = total;
  for (const s of ordered) {
    const give = Math.min(Math.floor(s.floor * Math.max(0, floorBase)), needs[s.name], left);
    alloc[s.name] = give;
    left -= give;
  }
  while (left > 0) {
    const open = ordered.filter((s) => s.share > 0 && alloc[s.name] < needs[s.name]);
    if (open.length === 0) break;
    const shares = open.reduce((sum, s) => sum + s.share, 0);
    let given = 0;
    for (const s of open) {
      const give = Math.min(needs[s.name] - alloc[s.name], Math.floor((left * s.share) / shares));
      alloc[s.name] += give;
      given += give;
    }
    if (given === 0) {
      // What is left is less than one token per open section: the highest priority takes it.
      alloc[open[0].name] += Math.min(left, needs[open[0].name] - alloc[open[0].name]);
      break;
    }
    left -= given;
  }
  return alloc;
}
