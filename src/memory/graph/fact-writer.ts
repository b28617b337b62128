/**
 * Writing facts into the graph: GraphDB.commit, and the new half of GraphDB.edit. A batch of triples is
 * checked (a bad one is skipped with its reason), a fact the user removed is skipped by an automatic commit
 * and lifted by an explicit one (fact-rejections.ts), and each triple upserts its two entities and its
 * relation in the commit's session. fact-commit.ts is the stricter front door plugins use.
 */
import type { CleanTriple, GraphCore, Triple, WriteContext } from "./core.js";
import type { FactRejections } from "./fact-rejections.js";
import { checkSentence, checkTriple, GraphError, MAX_TRIPLES_PER_COMMIT } from "./rules.js";

export interface CommitOptions {
  sessionId?: string;
  turnId?: number;
  /** The sentence the triples were taken from; kept once and cited by each relation. */
  sentence?: string;
  /** When the facts were said (unix ms); default now. */
  ts?: number;
  /**
   * Someone states these facts on purpose (the user, the model's memory tool): a fact the user had removed
   * is stored and no longer rejected. Otherwise the commit is automatic (rule distillation, archiving) and
   * skips a fact the user removed — the default, so a new automatic path cannot undo a correction by omission.
   */
  explicit?: boolean;
}

export interface CommitResult {
  /** Entities created. */
  entities: number;
  /** Relations created. */
  relations: number;
  /** Relations that existed in this session and were refreshed (confidence, time, reactivated). */
  refreshed: number;
  /** One line per triple not written, with the reason. */
  skipped: string[];
  /** Triples skipped (and listed in `skipped`) because the user had removed that fact: automatic commits only. */
  rejected: number;
  /** Triples the user had removed, stored again by this explicit commit. */
  lifted: number;
}

export class FactWriter {
  constructor(
    private readonly core: GraphCore,
    private readonly rejections: FactRejections,
    private readonly clock: () => number,
    private readonly day: (ts: number) => string,
  ) {}

  /** See GraphDB.commit. */
  commit(triples: readonly Triple[], opts: CommitOptions = {}): CommitResult {
    if (!Array.isArray(triples)) {
      throw new GraphError({
        code: "graph_bad_argument",
        message: "triples must be an array of {subject, relation, object}",
      });
    }
    if (triples.length > MAX_TRIPLES_PER_COMMIT) {
      throw new GraphError({
        code: "graph_limit",
        message: `at most ${MAX_TRIPLES_PER_COMMIT} triples per commit, got ${triples.length}: commit them in batches`,
      });
    }
    const sentence = checkSentence(opts.sentence);
    const result: CommitResult = { entities: 0, relations: 0, refreshed: 0, skipped: [], rejected: 0, lifted: 0 };
    const clean: Array<{ at: number; t: CleanTriple }> = [];
    for (const [i, t] of triples.entries()) {
      const c = checkTriple(t);
      if (typeof c === "string") result.skipped.push(`#${i + 1}: ${c}`);
      else clean.push({ at: i + 1, t: c });
    }
    if (clean.length === 0) return result;
    return this.core.index.write((w) => {
      const kept = clean.filter(({ at, t }) => this.admit(at, t, opts.explicit === true, result));
      // Nothing left to cite it: the sentence is not kept either.
      if (kept.length === 0) return result;
      const ctx = this.context(opts);
      if (sentence) ctx.sentenceId = this.core.sentenceId(sentence, ctx.now);
      const touched: number[] = [];
      for (const { t } of kept) {
        const r = this.commitOne(t, ctx);
        result.entities += r.created;
        if (r.isNew) result.relations++;
        else result.refreshed++;
        touched.push(...r.ids);
      }
      this.core.refreshIndex(w, touched);
      return result;
    });
  }

  /** What every fact of one write is stamped with: time, session, turn, day bucket (the sentence comes later). */
  context(opts: CommitOptions): WriteContext {
    const now = opts.ts ?? this.clock();
    if (!Number.isFinite(now))
      throw new GraphError({ code: "graph_bad_argument", message: `ts must be unix ms, got ${now}` });
    return {
      now,
      sessionId: typeof opts.sessionId === "string" ? opts.sessionId : "",
      turnId: Number.isInteger(opts.turnId) ? (opts.turnId as number) : 0,
      dateBucket: this.day(now),
      sentenceId: 0,
    };
  }

  /** Upserts one triple's two entities and its relation; `ids` are the entities whose search items need a refresh. */
  commitOne(t: CleanTriple, ctx: WriteContext): { created: number; isNew: boolean; ids: number[] } {
    const s = this.core.upsertEntity(t.subject, t.subjectType, ctx.now);
    const o = this.core.upsertEntity(t.object, t.objectType, ctx.now);
    const isNew = this.core.upsertRelation(s.id, o.id, t, ctx);
    return { created: Number(s.created) + Number(o.created), isNew, ids: [s.id, o.id] };
  }

  /** Whether a checked triple is written: an automatic commit skips a fact the user removed (and says so). */
  private admit(at: number, t: CleanTriple, explicit: boolean, result: CommitResult): boolean {
    if (explicit) {
      if (this.rejections.lift(t)) result.lifted++;
      return true;
    }
    if (!this.rejections.blocks(t)) return true;
    result.rejected++;
    result.skipped.push(`#${at}: the user removed "${t.subject} ${t.relation} ${t.object}" from memory`);
    return false;
  }
}
