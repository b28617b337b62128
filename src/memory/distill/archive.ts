/**
 * The archive loop (60 min): cold documents (72 h untouched, ≤ 2 accesses) → docToTriples → graph, then the
 * document is marked distilled. It is never deleted: its verbatim turns stay findable by the related-memory
 * search, which is what brings the user's own words back into the prompt.
 *
 * A document may hold hundreds of turns, so the job works turn by turn (a step stops at its time share,
 * possibly inside a document) and records its place after each commit (archive-progress.ts); the document
 * is marked distilled only once all its turns and its own facts are in. Turns run between steps, so each
 * step first checks that the document it is in is still there (doc_query and forgetting remove documents).
 */
import { errorMessage } from "../../util/errors.js";
import { formatInZone, systemTimeZone } from "../../util/time-zone.js";
import type { DB } from "../store.js";
import { ArchiveProgress } from "./archive-progress.js";
import { type DocCommit, docCommit, turnCommit } from "./doc-triples.js";
import type { ColdDoc, DistillLog, DocsPort, DocTurnLite, GraphCommit, RunJob } from "./ports.js";
import { slicedJob } from "./slice.js";

/** Documents per tick; the rest wait for the next one (a first start after an upgrade may bring thousands). */
export const ARCHIVE_MAX_PER_TICK = 500;

export interface ArchiveDeps {
  /** memory.db, for the loop's place inside a document. */
  db: DB;
  docs: DocsPort;
  graph: GraphCommit;
  runJob: RunJob;
  now(): number;
  /** Time zone of the documents' day names; default the process's. */
  timeZone?: string;
  log?: DistillLog;
}

/** A document being distilled: its turns and the next step (turns.length = its own facts, then the mark). */
interface InProgress {
  doc: ColdDoc;
  turns: DocTurnLite[];
  at: number;
}

export async function runArchiveLoop(d: ArchiveDeps): Promise<string> {
  const now = d.now();
  const zone = d.timeZone || systemTimeZone();
  const day = (ts: number) => formatInZone(ts, zone).slice(0, 10);
  const progress = new ArchiveProgress(d.db);
  const failed = new Set<string>();
  const totals = { done: 0, relations: 0, entities: 0, rejected: 0 };
  let page: ColdDoc[] = [];
  let current: InProgress | null = null;

  const stillCold = (id: string) => d.docs.get(id)?.distilledAt === null;
  let started = false;
  const begin = () => {
    if (!started) {
      started = true;
      progress.dropGone(stillCold); // places in documents that left the store since (doc_query, forgetting)
    }
    if (current && !stillCold(current.doc.id)) {
      progress.clear(current.doc.id);
      current = null;
    }
  };
  const next = (): InProgress | null => {
    while (current === null) {
      if (totals.done + failed.size >= ARCHIVE_MAX_PER_TICK) return null;
      // A failed document stays cold; skip it for the rest of this tick (a page of only those ends the tick).
      if (page.length === 0)
        page = d.docs.findCold(now).filter((doc) => !failed.has(doc.id) && doc.distilledAt === null);
      const doc = page.shift();
      if (!doc) return null;
      if (stillCold(doc.id)) current = { doc, turns: d.docs.turns(doc.id), at: progress.next(doc.id) };
    }
    return current;
  };
  const commit = (c: DocCommit) => {
    const r = d.graph.commit(c.triples, { sessionId: c.sessionId, sentence: c.sentence, ts: c.ts });
    totals.relations += r.relations;
    totals.entities += r.entities;
    totals.rejected += r.rejected ?? 0;
  };
  const each = (w: InProgress) => {
    try {
      if (w.at < w.turns.length) {
        const c = turnCommit(w.turns[w.at]);
        w.at++;
        if (c) {
          commit(c);
          progress.set(w.doc.id, w.at, now);
        }
        return;
      }
      if (w.at === w.turns.length) {
        const about = docCommit(w.doc, w.turns, day);
        w.at++;
        if (about) {
          commit(about);
          progress.set(w.doc.id, w.at, now);
        }
      }
      d.db.transaction(() => {
        d.docs.markDistilled(w.doc.id, now);
        progress.clear(w.doc.id);
      })();
      totals.done++;
    } catch (err) {
      if (failed.size === 0)
        d.log?.warn(`archive: document ${w.doc.id} not distilled, retried next tick: ${errorMessage(err)}`);
      failed.add(w.doc.id);
    }
    current = null;
  };

  await d.runJob(slicedJob("distill.archive", next, each, { begin, db: d.db }));
  return `archive: ${totals.done} cold documents → ${totals.relations} new relations, ${totals.entities} new entities, ${totals.rejected} facts skipped as removed by the user (${failed.size} failed)`;
}
