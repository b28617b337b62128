/**
 * The archive loop (60 min): cold documents (72 h untouched, ≤ 2 accesses) → docToTriples → graph, then the
 * document is marked distilled. It is never deleted: its verbatim turns stay findable by the related-memory
 * search, which is what brings the user's own words back into the prompt.
 */
import { errorMessage } from "../../util/errors.js";
import { formatInZone, systemTimeZone } from "../../util/time-zone.js";
import { docToTriples } from "./doc-triples.js";
import type { ColdDoc, DistillLog, DocsPort, GraphCommit, RunJob } from "./ports.js";
import { slicedJob } from "./slice.js";

/** Documents per tick; the rest wait for the next one (a first start after an upgrade may bring thousands). */
export const ARCHIVE_MAX_PER_TICK = 500;

export interface ArchiveDeps {
  docs: DocsPort;
  graph: GraphCommit;
  runJob: RunJob;
  now(): number;
  /** Time zone of the documents' day names; default the process's. */
  timeZone?: string;
  log?: DistillLog;
}

export async function runArchiveLoop(d: ArchiveDeps): Promise<string> {
  const now = d.now();
  const zone = d.timeZone || systemTimeZone();
  const day = (ts: number) => formatInZone(ts, zone).slice(0, 10);
  const failed = new Set<string>();
  let done = 0;
  let relations = 0;
  let entities = 0;
  let page: ColdDoc[] = [];
  const next = (): ColdDoc | null => {
    if (done + failed.size >= ARCHIVE_MAX_PER_TICK) return null;
    // A failed document stays cold; skip it for the rest of this tick (a page of only those ends the tick).
    if (page.length === 0) page = d.docs.findCold(now).filter((doc) => !failed.has(doc.id) && doc.distilledAt === null);
    return page.shift() ?? null;
  };
  const each = (doc: ColdDoc) => {
    try {
      for (const c of docToTriples(doc, d.docs.turns(doc.id), day)) {
        const r = d.graph.commit(c.triples, { sessionId: c.sessionId, sentence: c.sentence, ts: c.ts });
        relations += r.relations;
        entities += r.entities;
      }
      d.docs.markDistilled(doc.id, now);
      done++;
    } catch (err) {
      if (failed.size === 0)
        d.log?.warn(`archive: document ${doc.id} not distilled, retried next tick: ${errorMessage(err)}`);
      failed.add(doc.id);
    }
  };
  await d.runJob(slicedJob("distill.archive", next, each));
  return `archive: ${done} cold documents → ${relations} new relations, ${entities} new entities (${failed.size} failed)`;
}
