/**
 * Forgetting forgets: text that mentions the given terms leaves every layer at once — the context window,
 * archived turns and documents, graph entities/relations/sentences, distill candidates and the raw text
 * log — and with each its keyword and vector index items. Afterwards the WAL is checkpointed so, with
 * `secure_delete` on, the removed text does not linger in the database files either.
 *
 * Matching is plain case-insensitive substring: a user who says "forget Alice" means every trace of the
 * word, not what an embedding finds similar.
 */
import { rmSync } from "node:fs";
import type { ForgetCounts, ForgetReport } from "@homeagent/sdk";
import type { ContextEvent } from "../kernel/types.js";
import { HomeAgentError } from "../util/errors.js";
import type { RelevanceContext } from "./context.js";
import type { DistillPipeline } from "./distill/pipeline.js";
import type { DocTurn } from "./doc-schema.js";
import type { DocStore } from "./documents.js";
import type { GraphDB } from "./graph.js";
import { type DB, upgradeBackups } from "./store.js";
import { mentioning, type TextLog } from "./textlog.js";

export interface ForgetDeps {
  db: DB;
  context: RelevanceContext;
  docs: DocStore;
  graph: GraphDB;
  pipeline: DistillPipeline;
  textlog: TextLog;
}

const SAMPLES = 8;
/** Terms shorter than this would match nearly everything; forgetting them needs a longer phrase. */
const MIN_TERM_CHARS = 2;

function zeroCounts(): ForgetCounts {
  return {
    context: 0,
    documents: 0,
    entities: 0,
    relations: 0,
    sentences: 0,
    textLog: 0,
    indexItems: 0,
    backups: 0,
  };
}

function checkTerms(terms: readonly string[]): string[] {
  const clean = terms.map((t) => t.trim().toLowerCase()).filter(Boolean);
  if (clean.length === 0 || clean.some((t) => [...t].length < MIN_TERM_CHARS)) {
    throw new HomeAgentError({
      code: "forget_too_short",
      message: `say what to forget in at least ${MIN_TERM_CHARS} characters: a shorter text would match nearly everything`,
    });
  }
  return clean;
}

export class Forgetter {
  constructor(private readonly deps: ForgetDeps) {}

  /** What `forget` would remove, with a few samples; nothing changes. */
  async preview(query: string): Promise<ForgetReport> {
    const terms = checkTerms([query]);
    const m = this.find(terms);
    const log = await this.deps.textlog.search(query, SAMPLES);
    const matched = zeroCounts();
    matched.context = m.events.length;
    matched.documents = m.docs.length;
    matched.entities = m.entities.length;
    matched.relations = m.relations;
    matched.sentences = m.sentences;
    matched.textLog = log.total;
    matched.indexItems = m.events.length + this.deps.docs.itemsOf(m.turns) + m.entities.length;
    // The raw log repeats what the window and the documents hold: each text once.
    const samples = [
      ...new Set([
        ...m.events.map((e) => `${e.input} ${e.response}`.trim()),
        ...m.turns.map((t) => `${t.input} ${t.response}`.trim()),
        ...m.entities,
        ...log.events.map((e) => `${e.input} ${e.response}`.trim()),
      ]),
    ].slice(0, SAMPLES);
    return { query, confirmed: false, matched, removed: zeroCounts(), samples };
  }

  /** Removes every trace of text mentioning `query` (see file comment); returns counts by layer. */
  async forget(query: string, opts: { keepPending?: boolean } = {}): Promise<ForgetReport> {
    const preview = await this.preview(query);
    const removed = await this.remove([query], opts);
    return { ...preview, confirmed: true, removed };
  }

  /**
   * The removal itself, also for the graph tools' hard purge and delete. `keepPending` leaves the turn that
   * is still running alone (a tool may not pull its own turn out from under it); the caller then repeats
   * the removal once that turn has ended, which also catches its reply, raw-log line and distill candidate.
   */
  async remove(terms: readonly string[], opts: { keepPending?: boolean } = {}): Promise<ForgetCounts> {
    const { context, docs, graph, pipeline, textlog, db } = this.deps;
    const needle = checkTerms(terms);
    const m = this.find(needle, opts.keepPending === true);
    const counts = zeroCounts();
    counts.context = await context.remove(m.events.map((e) => e.id));
    const rewritten = docs.forget(m.turns);
    counts.documents = rewritten.documents;
    for (const name of m.entities) {
      const r = graph.deleteEntity(name);
      counts.entities += r.entities;
      counts.relations += r.relations;
      counts.sentences += r.sentences;
    }
    const cited = graph.forgetSentences(needle);
    counts.sentences += cited.sentences;
    counts.relations += cited.relations;
    // Rejections are not made here (the text that stated the facts is gone, so nothing can distill them
    // again); those already kept that mention the terms go, or the forgotten names would linger in them.
    graph.forgetRejections(needle);
    pipeline.purge((content) => mentionsAll(content, needle));
    counts.textLog = await textlog.purge((e) => needle.every((t) => mentioning(t)(e)));
    counts.indexItems = counts.context + rewritten.items + counts.entities;
    // A pre-upgrade copy of memory.db holds the old text too; it is only kept for a failed upgrade.
    for (const path of upgradeBackups(db)) {
      rmSync(path, { force: true });
      counts.backups++;
    }
    db.pragma("wal_checkpoint(TRUNCATE)");
    return counts;
  }

  private find(terms: readonly string[], keepPending = false) {
    const { context, docs, graph } = this.deps;
    const events = context
      .events()
      .filter((e) => mentionsAll(eventText(e), terms) && !(keepPending && awaitingReply(e)));
    const turns: DocTurn[] = docs.mentioning(terms);
    const docIds = new Set(turns.map((t) => t.docId));
    const entities = graph.entitiesMatching(terms);
    const relations = entities.reduce((n, name) => n + graph.relationsOf(name).length, 0);
    const sentences = graph.sentencesMatching(terms).length;
    return { events, turns, docs: [...docIds], entities, relations, sentences };
  }
}

/** A user input whose turn has not ended: no reply yet and not marked unanswered. */
function awaitingReply(e: ContextEvent): boolean {
  return e.kind === "user" && e.response === "" && e.unanswered === undefined;
}

function eventText(e: ContextEvent): string {
  return [e.input, e.response, ...e.toolResults.map((r) => r.content)].join("\n");
}

function mentionsAll(text: string, terms: readonly string[]): boolean {
  const lower = text.toLowerCase();
  return terms.every((t) => lower.includes(t));
}
