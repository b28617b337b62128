/**
 * The conversation as memory holds it, for the web UI's chat history (`sdk.memory.history`): the events of
 * the context window and the turns archived from it into documents, newest first. It is read from those
 * two tables and nowhere else, so whatever `forget` removed from memory is gone from the history too, and
 * an exchange keeps its place when a prune moves it from the window into a document (its id changes from
 * `ctx:<eventId>` to `turn:<turnId>`).
 *
 * Left out: NoMemory events (terminal output, idle interrupts), which memory never archives, so they would
 * vanish from the history at the next prune; and manual documents recalled into the window (channel
 * "document"), which are notes, not conversation.
 */
import type { HistoryEntry } from "@homeagent/sdk";
import { cachedStatement } from "../util/statements.js";
import { describe, intArg, MemoryArgumentError } from "./api-args.js";
import type { DB } from "./store.js";
import { CONTEXT_LIMITS, contextItemId } from "./window/context.js";

export const HISTORY_LIMITS = { defaultLimit: 50, maxLimit: 200 } as const;

/** The channel of a recalled manual document in the window (see coldEvents in context.ts). */
const DOCUMENT_CHANNEL = "document";

export interface HistoryOptions {
  /** "webui" matches the sources "webui" and "webui/<anything>", not "webuix". */
  source?: string;
  /** Only entries older than this (unix ms). */
  before?: number;
  limit?: number;
}

interface Row {
  id: number;
  ts: number;
  source: string;
  channel: string;
  input: string;
  response: string;
  unanswered: string | null;
}

interface Entry extends HistoryEntry {
  /** 0 for the window, 1 for archived turns: the order of two entries of the same millisecond. */
  layer: number;
  rowId: number;
}

/** Both tables are read newest first along their (ts, id) index, each at most limit + 1 rows. */
const FILTER = `channel <> '${DOCUMENT_CHANNEL}' AND ts < @before
  AND (@all = 1 OR source = @source OR substr(source, 1, @prefixLen) = @prefix)`;
const WINDOW = `SELECT id, ts, source, channel, input, response, unanswered FROM context_window
  WHERE no_memory = 0 AND ${FILTER} ORDER BY ts DESC, id DESC LIMIT @take`;
const ARCHIVED = `SELECT id, ts, source, channel, input, response, NULL AS unanswered FROM doc_turns
  WHERE ${FILTER} ORDER BY ts DESC, id DESC LIMIT @take`;

export function conversationHistory(
  db: DB,
  opts: HistoryOptions | undefined,
): { items: HistoryEntry[]; more: boolean } {
  const { source, before, limit } = checkOptions(opts);
  const prefix = `${source ?? ""}/`;
  const params = {
    all: source === undefined ? 1 : 0,
    source: source ?? "",
    prefix,
    // substr counts characters, not UTF-16 units.
    prefixLen: [...prefix].length,
    before: before ?? Number.MAX_SAFE_INTEGER,
    take: limit + 1,
  };
  const merged = db.transaction(() => [
    ...(cachedStatement(db, WINDOW).all(params) as Row[]).map((r) => entry(r, 0)),
    ...(cachedStatement(db, ARCHIVED).all(params) as Row[]).map((r) => entry(r, 1)),
  ])();
  merged.sort((a, b) => b.ts - a.ts || a.layer - b.layer || b.rowId - a.rowId);
  const more = merged.length > limit;
  const page = more ? wholeMilliseconds(merged, limit) : merged;
  return { items: page.map(({ layer: _, rowId: __, ...e }) => e), more };
}

/**
 * The first `limit` entries, less a trailing run of entries that share their millisecond with the first
 * entry left off: the next page asks for entries `before` the last one's ts, which would skip the rest of
 * that run. A page made of one single millisecond is returned as it is (there is no better cut).
 */
function wholeMilliseconds(sorted: Entry[], limit: number): Entry[] {
  const cutTs = sorted[limit].ts;
  let end = limit;
  while (end > 0 && sorted[end - 1].ts === cutTs) end--;
  return sorted.slice(0, end > 0 ? end : limit);
}

function entry(r: Row, layer: number): Entry {
  return {
    id: layer === 0 ? contextItemId(r.id) : `turn:${r.id}`,
    ts: r.ts,
    source: r.source,
    channel: r.channel,
    input: r.input,
    response: r.response,
    ...(r.unanswered !== null ? { unanswered: r.unanswered } : {}),
    layer,
    rowId: r.id,
  };
}

function checkOptions(opts: HistoryOptions | undefined): { source?: string; before?: number; limit: number } {
  if (opts !== undefined && (typeof opts !== "object" || opts === null)) {
    throw new MemoryArgumentError("history takes {source?, before?, limit?}");
  }
  const source = opts?.source;
  if (source !== undefined && (typeof source !== "string" || !source || source.length > CONTEXT_LIMITS.nameChars)) {
    throw new MemoryArgumentError(
      `source must be a source name of 1–${CONTEXT_LIMITS.nameChars} characters (e.g. "webui"), got ${describe(source)}`,
    );
  }
  const before =
    opts?.before === undefined ? undefined : intArg("before (unix ms)", opts.before, 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = intArg("limit", opts?.limit, HISTORY_LIMITS.defaultLimit, 1, HISTORY_LIMITS.maxLimit);
  return { source, before, limit };
}
