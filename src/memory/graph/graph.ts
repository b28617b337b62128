/**
 * GraphDB: the long-term layer of memory (inventory §5.3) — entities, the facts between them and the
 * sentences they came from, in memory.db. Every write runs in one SearchIndex.write transaction together
 * with the `ent:<id>` search items the Indexer matches by vector, so the graph and its index never
 * disagree, and forgetting something removes it from both. A fact the user took out by hand (edit,
 * deleteFact) is remembered as rejected, so automatic commits do not bring it back (fact-rejections.ts).
 * How facts are written is in fact-writer.ts; what takes them out, in removal.ts and forget.ts.
 */
import type { SearchIndex } from "../../retrieval/search.js";
import { cachedStatement } from "../../util/statements.js";
import { type DB, migrateTables } from "../store.js";
import {
  ENTITY_COLUMNS,
  type Entity,
  type EntityRow,
  GraphCore,
  type IndexWriter,
  RELATION_SELECT,
  type Relation,
  type Trait,
  type Triple,
  toEntity,
  toRelation,
} from "./core.js";
import { FactRejections, type RejectionStats } from "./fact-rejections.js";
import { type CommitOptions, type CommitResult, FactWriter } from "./fact-writer.js";
import { forgetGraph, type GraphForgetCounts, type GraphMatches, matchGraph } from "./forget.js";
import { type RecallLimits, type RecallResult, recallGraph, traitsOf } from "./recall.js";
import {
  type DeleteResult,
  deleteEntity,
  deleteFact,
  editFact,
  mergeEntities,
  type PurgeFilter,
  type PurgeResult,
  purgeFacts,
} from "./removal.js";
import {
  checkTrait,
  checkTriple,
  dayFormatter,
  GRAPH_MIGRATIONS,
  GraphError,
  normalizeName,
  sameFact,
} from "./rules.js";
import { clearCitations, relationsWithSentences } from "./sentences.js";

export type { Entity, Relation, Trait, Triple } from "./core.js";
export { ENTITY_KIND, entityIdOfItem, entityItemId } from "./core.js";
export type { GraphForgetCounts, GraphMatches } from "./forget.js";
export type { RecallLimits, RecallResult } from "./recall.js";
export type { DeleteResult, PurgeFilter, PurgeResult } from "./removal.js";
export { GraphError } from "./rules.js";

export interface GraphOptions {
  /** Clock for created_at / updated_at (tests). */
  now?: () => number;
  /** Time zone of date_bucket (YYYY-MM-DD); default the process's. */
  timeZone?: string;
  /** Most facts remembered as rejected by the user (default 10,000); the oldest are dropped first. */
  maxRejections?: number;
  /** Where a dropped rejection is reported. */
  log?: { warn(msg: string): void };
}

export interface Introspection {
  entities: number;
  relations: number;
  inactiveRelations: number;
  sentences: number;
  traits: number;
  hot: Array<{ name: string; type: string; mentions: number }>;
  /** Facts the user removed that automatic commits skip, and how often they were skipped. */
  rejected: RejectionStats;
}

const HOT = 10;
const MAX_PAGE = 500;

export class GraphDB {
  private readonly core: GraphCore;
  private readonly rejections: FactRejections;
  private readonly writer: FactWriter;
  private readonly clock: () => number;

  constructor(
    readonly db: DB,
    readonly index: SearchIndex,
    opts: GraphOptions = {},
  ) {
    migrateTables(db, "graph", GRAPH_MIGRATIONS);
    this.core = new GraphCore(db, index);
    this.rejections = new FactRejections(db, { max: opts.maxRejections, warn: (msg) => opts.log?.warn(msg) });
    this.clock = opts.now ?? Date.now;
    this.writer = new FactWriter(this.core, this.rejections, this.clock, dayFormatter(opts.timeZone));
  }

  /**
   * Writes facts: invalid triples are skipped with a reason, entities are upserted (one more mention
   * each time), and a fact already known in the same session is refreshed rather than duplicated. A fact
   * the user removed is skipped by an automatic commit and restored by an explicit one (opts.explicit).
   */
  commit(triples: readonly Triple[], opts: CommitOptions = {}): CommitResult {
    return this.writer.commit(triples, opts);
  }

  /** Entities matching the keywords or named by the seeds, then `depth` hops of active facts (see graph-recall.ts). */
  recall(keywords: readonly string[], seeds: readonly string[] = [], depth = 2, limits?: RecallLimits): RecallResult {
    return recallGraph(this.db, keywords, seeds, depth, limits);
  }

  /** Folds `source` into `target`: its facts and traits move over, its mentions add up, it is deleted. */
  merge(source: string, target: string): { relations: number; dropped: number } {
    return this.write((w, now) => mergeEntities(this.core, w, source, target, now));
  }

  purge(filter: PurgeFilter): PurgeResult {
    return this.write((w, now) => purgeFacts(this.core, w, filter, now));
  }

  /**
   * Replaces a fact by its edited form: hard purge of the old (every session) + commit of the new. The old
   * fact is rejected, so automatic distillation of what still states it does not bring it back; the new one
   * is stated on purpose, so a rejection of it is lifted.
   */
  edit(
    old: { subject: string; relation: string; object: string },
    next: Partial<Triple>,
    opts: CommitOptions = {},
  ): { removed: number; added: number } {
    const from = {
      subject: normalizeName(old.subject),
      relation: normalizeName(old.relation),
      object: normalizeName(old.object),
    };
    if (!from.subject || !from.relation || !from.object) {
      throw new GraphError({
        code: "graph_bad_argument",
        message: "the old fact needs subject, relation and object, exactly as memory_recall shows them",
      });
    }
    const to = checkTriple({
      ...next,
      subject: next.subject ?? from.subject,
      relation: next.relation ?? from.relation,
      object: next.object ?? from.object,
    });
    if (typeof to === "string")
      throw new GraphError({ code: "graph_bad_argument", message: `the edited fact is not valid: ${to}` });
    if (sameFact(from, to) && !to.subjectType && !to.objectType) {
      throw new GraphError({
        code: "graph_bad_argument",
        message:
          "the new values equal the old fact: give at least one new_subject, new_relation or new_object that differs",
      });
    }
    return this.index.write((w) => {
      const ctx = this.writer.context(opts);
      const { removed } = editFact(this.core, w, from, to, (t) => this.writer.commitOne(t, ctx).ids);
      // In this order: an edit of the types alone names the same fact, which then stays unrejected.
      this.rejections.reject(from, ctx.now);
      this.rejections.lift(to);
      return { removed, added: 1 };
    });
  }

  /**
   * Deletes every copy (any session) of one fact, by its exact names; what is left with nothing goes too.
   * The fact is rejected, so automatic distillation does not bring it back.
   */
  deleteFact(fact: { subject: string; relation: string; object: string }): { removed: number } {
    return this.write((w, now) => {
      const r = deleteFact(this.core, w, fact);
      this.rejections.reject(fact, now);
      return r;
    });
  }

  /**
   * Removes an entity and everything about it (relations, traits, sentences naming it, its search item,
   * the rejected facts naming it: forgetting a name leaves no trace of it, not even there).
   */
  deleteEntity(name: string): DeleteResult {
    return this.write((w) => {
      const r = deleteEntity(this.core, w, name);
      this.rejections.forgetEntity(name);
      return r;
    });
  }

  /** What `forget` would remove for these (lower-case) terms; nothing changes. */
  matchForget(terms: readonly string[]): GraphMatches {
    return matchGraph(this.core, this.rejections, terms);
  }

  /** Forgetting: removes every trace of text mentioning all the (lower-case) terms (graph-forget.ts). */
  forget(terms: readonly string[]): GraphForgetCounts {
    return this.write((w) => forgetGraph(this.core, w, this.rejections, terms));
  }

  introspect(): Introspection {
    const count = (sql: string) => (this.db.prepare(sql).pluck().get() as number) ?? 0;
    const hot = this.recall([], [], 0, { maxEntities: HOT }).entities.map((e) => ({
      name: e.name,
      type: e.type,
      mentions: e.mentionCount,
    }));
    return {
      entities: count("SELECT COUNT(*) FROM entities"),
      relations: count("SELECT COUNT(*) FROM relations WHERE status = 'active'"),
      inactiveRelations: count("SELECT COUNT(*) FROM relations WHERE status <> 'active'"),
      sentences: count("SELECT COUNT(*) FROM sentences"),
      traits: count("SELECT COUNT(*) FROM person_traits"),
      hot,
      rejected: this.rejections.stats(),
    };
  }

  /** The entity of that name (case-insensitive for ASCII), or null. */
  entity(name: string): Entity | null {
    const row = this.core.entityByName(normalizeName(name));
    return row ? toEntity(row) : null;
  }

  entityById(id: number): Entity | null {
    const row = this.core.entityById(id);
    return row ? toEntity(row) : null;
  }

  /** A page of entities, most mentioned first. */
  entities(opts: { offset?: number; limit?: number } = {}): Entity[] {
    const offset = opts.offset ?? 0;
    const limit = opts.limit ?? 50;
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
      throw new GraphError({
        code: "graph_bad_argument",
        message: `offset must be an integer ≥ 0 and limit an integer from 1 to ${MAX_PAGE}`,
      });
    }
    return this.db
      .prepare<[number, number], EntityRow>(
        `SELECT ${ENTITY_COLUMNS} FROM entities e ORDER BY e.mention_count DESC, e.id DESC LIMIT ? OFFSET ?`,
      )
      .all(limit, offset)
      .map(toEntity);
  }

  count(): number {
    return this.db.prepare("SELECT COUNT(*) FROM entities").pluck().get() as number;
  }

  /** Whether any entity exists: a new user's graph is empty for a while, and a turn then asks it nothing. */
  hasEntities(): boolean {
    return cachedStatement(this.db, "SELECT EXISTS (SELECT 1 FROM entities)").pluck().get() === 1;
  }

  /** Active facts about one entity (either end), newest first. */
  relationsOf(name: string, limit = 100): Relation[] {
    const row = this.core.entityByName(normalizeName(name));
    if (!row) return [];
    return this.db
      .prepare(
        `${RELATION_SELECT} WHERE r.status = 'active' AND (r.source_id = @id OR r.target_id = @id)
         ORDER BY r.updated_at DESC, r.id DESC LIMIT @limit`,
      )
      .all({ id: row.id, limit: Math.min(Math.max(1, limit), MAX_PAGE) })
      .map((r) => toRelation(r as Parameters<typeof toRelation>[0]));
  }

  /** Sets (overwrites) a person's trait; the entity is created or retyped as a Person. */
  setTrait(name: string, trait: string, value: string): { previous: string | null } {
    const { person, key, text } = checkTrait(name, trait, value);
    return this.write((w, now) => {
      const { id } = this.core.upsertEntity(person, "Person", now);
      const previous =
        (this.db.prepare("SELECT value FROM person_traits WHERE entity_id = ? AND trait = ?").pluck().get(id, key) as
          | string
          | undefined) ?? null;
      this.db
        .prepare(
          `INSERT INTO person_traits (entity_id, trait, value, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (entity_id, trait) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        )
        .run(id, key, text, now);
      this.core.refreshIndex(w, [id]);
      return { previous };
    });
  }

  traits(name: string): Trait[] {
    const e = this.entity(name);
    return e ? traitsOf(this.db, [e]) : [];
  }

  /** Active facts that still cite their source sentence, oldest first: what the review loop checks. */
  withSentences(limit: number): Relation[] {
    return relationsWithSentences(this.core, Math.min(Math.max(1, limit), MAX_PAGE));
  }

  /** Drops the sentence citations of these facts (once reviewed) and the sentences nothing cites any more. */
  clearSentences(relationIds: readonly number[]): number {
    return this.write((w) => clearCitations(this.core, w, relationIds));
  }

  private write<T>(fn: (w: IndexWriter, now: number) => T): T {
    return this.index.write((w) => fn(w, this.clock()));
  }
}
