/**
 * What `memory.check()` reports: whether memory.db and its search index are intact. Apart from memory.ts
 * because it describes the files' health, not what memory holds.
 */

/**
 * One part of the check. "database": SQLite's own integrity check of memory.db (pages, b-trees, every index
 * against its table). "keyword_index": each search item's stored keyword terms against its text — an item
 * whose terms do not match cannot be found by the words it holds. "vector_index": vectors whose item is gone.
 */
export interface MemoryCheckPart {
  name: "database" | "keyword_index" | "vector_index";
  /** "incomplete": it ran out of time; `detail` says how far it got. */
  status: "ok" | "fail" | "incomplete";
  detail: string;
  /** The first problems found, at most 20 (e.g. an item id and what is wrong with it). */
  problems: string[];
  durationMs: number;
}

export interface MemoryCheck {
  /** Every part ran to its end and found nothing wrong. */
  ok: boolean;
  parts: MemoryCheckPart[];
  durationMs: number;
  /** When it finished, Unix ms. */
  at: number;
}
