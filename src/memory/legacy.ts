/**
 * The one-time move of the RecentContext table (`context_events`, store formats 1–2) into the three-layer
 * memory: rows still in the window become window events, rows it had already evicted become documents
 * with their original timestamps, all in one transaction that also drops the old table. openMemoryStore
 * has written `memory.db.bak-<format>` beside the store before any of this; discardUpgradeBackups deletes
 * it at the next successful start.
 */
import type { ContextEvent, NewContextEvent } from "../kernel/types.js";
import type { SearchIndex } from "../retrieval/search.js";
import type { DocStore } from "./documents/documents.js";
import { type DB, hasTable, LEGACY_CONTEXT_TABLE, upgradeBackups } from "./store.js";
import type { RelevanceContext } from "./window/context.js";

/** Evicted rows per document: about one window's worth, like one prune batch. */
const ARCHIVE_BATCH = 30;
/** Sources whose evicted rows are not archived (as for a prune). */
const NOT_ARCHIVED: ReadonlySet<string> = new Set(["agentcli", "terminal"]);

export interface LegacyReport {
  /** Events put into the window. */
  window: number;
  /** Events archived into documents, and the documents they made. */
  archived: number;
  documents: number;
  /** Evicted events of sources that are never archived. */
  dropped: number;
  backups: string[];
}

interface LegacyRow {
  id: number;
  ts: number;
  role: string;
  source: string;
  channel: string;
  text: string;
  tools: string;
  in_window: number;
  unanswered?: string | null;
}

interface Pending {
  event: ContextEvent;
  inWindow: boolean;
}

/** Moves the legacy rows, if the store still has them; null when there is nothing to migrate. */
export function migrateLegacyContext(
  db: DB,
  index: SearchIndex,
  context: RelevanceContext,
  docs: DocStore,
): LegacyReport | null {
  if (!hasTable(db, LEGACY_CONTEXT_TABLE)) return null;
  const rows = db.prepare(`SELECT * FROM ${LEGACY_CONTEXT_TABLE} ORDER BY id`).all() as LegacyRow[];
  const events = toEvents(rows);
  const inWindow = events.filter((p) => p.inWindow).map((p) => p.event);
  const evicted = events.filter((p) => !p.inWindow).map((p) => p.event);
  const archivable = evicted.filter((e) => !NOT_ARCHIVED.has(e.source));
  const report = index.write((w) => {
    context.insertWith(w, inWindow.map(withoutId));
    let documents = 0;
    for (let i = 0; i < archivable.length; i += ARCHIVE_BATCH) {
      if (docs.archive(archivable.slice(i, i + ARCHIVE_BATCH), "context_archived", w)) documents++;
    }
    db.exec(`DROP TABLE ${LEGACY_CONTEXT_TABLE}`);
    return {
      window: inWindow.length,
      archived: archivable.length,
      documents,
      dropped: evicted.length - archivable.length,
    };
  });
  return { ...report, backups: upgradeBackups(db) };
}

/**
 * One event per user turn: an agent row right after a user row of the same channel is that turn's reply
 * (RecentContext stored them as two rows); any other agent row is something the agent said on its own.
 * A merged turn is in the window if either of its rows was.
 */
function toEvents(rows: readonly LegacyRow[]): Pending[] {
  const out: Pending[] = [];
  for (const r of rows) {
    const tools = parseTools(r.tools);
    const last = out[out.length - 1];
    if (r.role === "agent") {
      if (last && isOpenTurn(last.event, r.channel)) {
        last.event.response = r.text;
        last.event.toolsUsed = tools;
        last.inWindow ||= r.in_window === 1;
        continue;
      }
      out.push({ event: legacyEvent(r, "agent", "", r.text, tools), inWindow: r.in_window === 1 });
      continue;
    }
    const event = legacyEvent(r, "user", r.text, "", []);
    if (r.unanswered) event.unanswered = r.unanswered;
    out.push({ event, inWindow: r.in_window === 1 });
  }
  return out;
}

function isOpenTurn(e: ContextEvent, channel: string): boolean {
  return e.kind === "user" && e.channel === channel && !e.response && !e.unanswered;
}

function legacyEvent(
  r: LegacyRow,
  kind: ContextEvent["kind"],
  input: string,
  response: string,
  toolsUsed: string[],
): ContextEvent {
  return {
    id: r.id,
    ts: r.ts,
    kind,
    source: r.source || "legacy",
    channel: r.channel || "legacy",
    input,
    response,
    toolsUsed,
    toolResults: [],
    noMemory: false,
  };
}

function withoutId({ id: _id, ...e }: ContextEvent): NewContextEvent {
  return e;
}

function parseTools(json: string): string[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
}
