/**
 * Forgetting forgets: text that mentions the given terms leaves every layer of memory at once — the context
 * window, archived turns and documents, the graph (entities, facts and their labels, source sentences,
 * person traits, types, rejected facts), distillation's pending lines and merge notes, the raw text log —
 * and with each its keyword and vector index items. Which column of memory.db holds user text, and who
 * forgets it, is declared in forget-registry.ts; a test holds the live schema to it. The bytes the rows
 * leave behind in the database files are scrubbed afterwards (scrub.ts).
 *
 * Matching is substring, as forgetMatcher (@homeagent/sdk) does it for every store: case-insensitive in any
 * script, NFKC, JSON-escaped forms too. A user who says "forget Alice" means every trace of the word, not
 * what an embedding finds similar.
 */
import { rmSync } from "node:fs";
import { type ForgetCounts, foldForForget, forgetMatcher } from "@homeagent/sdk";
import { forgetRecentTexts } from "../embedding/text.js";
import type { ContextEvent } from "../kernel/types.js";
import type { SearchIndex } from "../retrieval/search.js";
import { HomeAgentError } from "../util/errors.js";
import { NoMergeMarkers } from "./distill/merge.js";
import type { DistillPipeline } from "./distill/pipeline.js";
import type { DocStore } from "./documents/documents.js";
import type { DocTurn } from "./documents/schema.js";
import type { GraphDB } from "./graph/graph.js";
import { containsAll } from "./statements.js";
import { type DB, upgradeBackups } from "./store.js";
import { mentioning, type TextLog } from "./textlog.js";
import type { RelevanceContext } from "./window/context.js";

export interface ForgetDeps {
  db: DB;
  index: SearchIndex;
  context: RelevanceContext;
  docs: DocStore;
  graph: GraphDB;
  pipeline: DistillPipeline;
  textlog: TextLog;
  /** Told when the last sweep of the index still finds the text after every layer forgot it. */
  warn?: (msg: string) => void;
}

/** What the memory layers hold that mentions the terms, with a few of the texts. */
export interface MemoryMatches {
  counts: ForgetCounts;
  samples: string[];
}

const SAMPLES = 8;
/** Terms shorter than this would match nearly everything; forgetting them needs a longer phrase. */
const MIN_TERM_CHARS = 2;

export function zeroCounts(): ForgetCounts {
  return {
    context: 0,
    documents: 0,
    entities: 0,
    relations: 0,
    sentences: 0,
    traits: 0,
    types: 0,
    rejections: 0,
    distill: 0,
    textLog: 0,
    indexItems: 0,
    backups: 0,
    history: 0,
    inbox: 0,
    approvals: 0,
    transcripts: 0,
  };
}

/** The terms as forgetting compares them (foldForForget); refused when empty or too short to mean anything. */
export function checkTerms(terms: readonly string[]): string[] {
  const clean = terms.map((t) => foldForForget(t).trim()).filter(Boolean);
  if (clean.length === 0 || clean.some((t) => [...t].length < MIN_TERM_CHARS)) {
    throw new HomeAgentError({
      code: "forget_too_short",
      message: `say what to forget in at least ${MIN_TERM_CHARS} characters: a shorter text would match nearly everything`,
    });
  }
  return clean;
}

export class Forgetter {
  private readonly markers: NoMergeMarkers;

  constructor(private readonly deps: ForgetDeps) {
    this.markers = new NoMergeMarkers(deps.db);
  }

  /** What `remove([query])` would take out, with a few samples; nothing changes. */
  async match(query: string): Promise<MemoryMatches> {
    const needle = checkTerms([query]);
    const mentions = forgetMatcher(needle);
    const m = this.find(needle);
    const { names, ...g } = this.deps.graph.matchForget(needle);
    const log = await this.deps.textlog.search(needle[0], SAMPLES);
    const counts: ForgetCounts = {
      ...zeroCounts(),
      ...g,
      // The window's events, and the earlier versions of turns asked again that it keeps aside.
      context: m.events.length + this.deps.context.forgetVersions(mentions, false),
      documents: m.docs.length,
      distill: this.deps.pipeline.matches(mentions) + this.markers.mentioning(needle, { remove: false }),
      textLog: log.total,
      indexItems: m.events.length + this.deps.docs.itemsOf(m.turns) + g.entities,
    };
    // The raw log repeats what the window and the documents hold: each text once.
    const samples = [
      ...new Set([
        ...m.events.map((e) => `${e.input} ${e.response}`.trim()),
        ...m.turns.map((t) => `${t.input} ${t.response}`.trim()),
        ...names,
        ...log.events.map((e) => `${e.input} ${e.response}`.trim()),
      ]),
    ].slice(0, SAMPLES);
    return { counts, samples };
  }

  /**
   * The removal itself, also for the graph tools' hard purge and delete. `keepPending` leaves the turn that
   * is still running alone (a tool may not pull its own turn out from under it): `held` names its inputs,
   * and the caller repeats the removal once that turn has ended, which also catches its reply, raw-log line
   * and distill candidate.
   */
  async remove(
    terms: readonly string[],
    opts: { keepPending?: boolean } = {},
  ): Promise<{ counts: ForgetCounts; held: number[] }> {
    const { context, docs, graph, pipeline, textlog, db } = this.deps;
    const needle = checkTerms(terms);
    const mentions = forgetMatcher(needle);
    const m = this.find(needle, opts.keepPending === true);
    const removedEvents = await context.remove(m.events.map((e) => e.id));
    const rewritten = docs.forget(m.turns);
    const counts: ForgetCounts = {
      ...zeroCounts(),
      ...graph.forget(needle),
      context: removedEvents + context.forgetVersions(mentions, true),
      documents: rewritten.documents,
    };
    counts.distill = pipeline.purge(mentions) + this.markers.mentioning(needle, { remove: true });
    counts.textLog = await textlog.purge(mentioning(...needle), mentions);
    counts.indexItems = counts.context + rewritten.items + counts.entities + this.sweepIndex(needle);
    // A pre-upgrade copy of memory.db holds the old text too; it is only kept for a failed upgrade.
    for (const path of upgradeBackups(db)) {
      rmSync(path, { force: true });
      counts.backups++;
    }
    db.pragma("wal_checkpoint(TRUNCATE)");
    // The tokenizer's recent analyses hold texts too (a forget repeated after a running turn included).
    forgetRecentTexts();
    return { counts, held: m.held.map((e) => e.id) };
  }

  /**
   * Forgets these events of the window whole, with their raw-log lines and distill candidates, without
   * knowing what they mentioned: after a crash, the turns a forget had to leave running (forget-service.ts).
   */
  async removeEvents(ids: readonly number[]): Promise<number> {
    const { context, pipeline, textlog } = this.deps;
    const events = ids.map((id) => context.event(id)).filter((e): e is ContextEvent => e !== null);
    if (events.length === 0) return 0;
    const same = (ts: number, input: string) => events.some((e) => e.ts === ts && e.input === input);
    await textlog.purge((line) => same(line.ts, line.input));
    pipeline.purge((content) => content !== "" && events.some((e) => e.input.startsWith(content)));
    forgetRecentTexts();
    return context.remove(events.map((e) => e.id));
  }

  /**
   * Every layer has forgotten: an index item that still holds the text is a layer's mistake. It is removed
   * all the same, and said loudly so the mistake gets fixed.
   */
  private sweepIndex(terms: readonly string[]): number {
    const where = containsAll(this.deps.db, "text", terms);
    const left = this.deps.db
      .prepare(`SELECT id, kind FROM search_items WHERE ${where.sql}`)
      .all(...where.params) as Array<{
      id: string;
      kind: string;
    }>;
    if (left.length === 0) return 0;
    this.deps.warn?.(
      `forget: ${left.length} search item(s) still held the text after every layer forgot it (kinds ${[...new Set(left.map((r) => r.kind))].join(", ")}); removed them`,
    );
    return this.deps.index.remove(left.map((r) => r.id));
  }

  private find(terms: readonly string[], keepPending = false) {
    const { context, docs } = this.deps;
    const mentions = forgetMatcher(terms);
    const all = context.events().filter((e) => mentions(eventText(e)));
    const held = keepPending ? all.filter(awaitingReply) : [];
    const events = all.filter((e) => !held.includes(e));
    const turns: DocTurn[] = docs.mentioning(terms);
    const docIds = new Set(turns.map((t) => t.docId));
    return { events, held, turns, docs: [...docIds] };
  }
}

/** A user input whose turn has not ended: no reply yet and not marked unanswered. */
function awaitingReply(e: ContextEvent): boolean {
  return e.kind === "user" && e.response === "" && e.unanswered === undefined;
}

/** Every text of an event that its row keeps (context_window's columns, see forget-registry.ts). */
function eventText(e: ContextEvent): string {
  return [
    e.input,
    e.response,
    e.cleanInput ?? "",
    e.unanswered ?? "",
    ...e.toolsUsed,
    ...e.toolResults.flatMap((r) => [r.name, r.content, r.clean ?? ""]),
  ].join("\n");
}
