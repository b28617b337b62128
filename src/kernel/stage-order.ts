/**
 * The order of stage handlers, which decides conflicts (the later one wins). Registration order alone is
 * not stable: at boot it depends on which plugin process answered first, and a restarted plugin registers
 * again at the end. With a rank the order is by plugin rank, then by registration within each plugin.
 */

/** A plugin's place in the order of handlers: lower runs and applies first (later wins a conflict). */
export type PluginRank = (plugin: string) => number;

/** Sorts `regs` in place by (rank, plugin name, registration sequence); an unknown (NaN) rank goes last. */
export function sortByRank<T extends { plugin: string; seq: number }>(regs: T[], rank: PluginRank): void {
  const ranks = new Map<string, number>();
  const rankOf = (plugin: string): number => {
    let r = ranks.get(plugin);
    if (r === undefined) {
      const asked = rank(plugin);
      r = Number.isNaN(asked) ? Number.POSITIVE_INFINITY : asked;
      ranks.set(plugin, r);
    }
    return r;
  };
  regs.sort((a, b) => {
    const ra = rankOf(a.plugin);
    const rb = rankOf(b.plugin);
    if (ra !== rb) return ra < rb ? -1 : 1;
    if (a.plugin !== b.plugin) return a.plugin < b.plugin ? -1 : 1;
    return a.seq - b.seq;
  });
}
