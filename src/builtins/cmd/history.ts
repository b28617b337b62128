/**
 * The last 100 commands run or refused, newest first, for `/cmd history`, the API and the dashboard. Kept in
 * memory only (a restart clears it); a command line can hold what the user said, so forget reaches it.
 */
import { forgetMatcher } from "@homeagent/sdk";

export const HISTORY_MAX = 100;

export interface HistoryEntry {
  id: number;
  command: string;
  workdir: string;
  startedAt: number;
  /** ok, timeout, stopped, error, refused, denied, running. */
  status: string;
  exitCode?: number | null;
  durationMs?: number;
  /** How it came to run: a pattern, the user's approval (once, always, remembered), mode any. */
  allowedBy?: string;
}

export class CommandHistory {
  private readonly entries: HistoryEntry[] = [];
  private next = 0;

  add(entry: Omit<HistoryEntry, "id">): HistoryEntry {
    const full = { ...entry, id: ++this.next };
    this.entries.unshift(full);
    this.entries.length = Math.min(this.entries.length, HISTORY_MAX);
    return full;
  }

  list(): HistoryEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  /** Entries whose command mentions every term; removed when `remove`. */
  forget(terms: readonly string[], remove: boolean): number {
    const matches = forgetMatcher(terms);
    const hits = this.entries.filter((e) => matches(e.command) || matches(e.workdir));
    if (remove) {
      for (const hit of hits) this.entries.splice(this.entries.indexOf(hit), 1);
    }
    return hits.length;
  }
}
