/**
 * Forgetting in the graph: every column of it that holds user text gives the text up. An entity named with
 * the terms goes with everything about it; a source sentence that mentions them goes with the facts taken
 * from it; a fact whose relation label holds them, and a person trait whose name or value does, go alone;
 * an entity type that holds them falls back to the default type; a rejected fact naming them is dropped.
 * Everything runs in the caller's SearchIndex.write, so the entities' search items change with the rows.
 */
import type { ForgetCounts } from "@homeagent/sdk";
import { containsAll } from "../statements.js";
import { type GraphCore, type IndexWriter, toEntity } from "./core.js";
import type { FactRejections } from "./fact-rejections.js";
import { deleteEntity } from "./removal.js";
import { DEFAULT_TYPE } from "./rules.js";
import { forgetSentenceIds, matchingSentenceIds } from "./sentences.js";

/** What forgetting removes from the graph, in the counts a forget reports. */
export type GraphForgetCounts = Pick<
  ForgetCounts,
  "entities" | "relations" | "sentences" | "traits" | "types" | "rejections"
>;

/** Matching rows, as counts, with the names of the entities that would go (for samples). */
export interface GraphMatches extends GraphForgetCounts {
  names: string[];
}

const json = (ids: readonly number[]) => JSON.stringify(ids);

/** What forgetGraph would remove for these (lower-case) terms; nothing changes. */
export function matchGraph(core: GraphCore, rejections: FactRejections, terms: readonly string[]): GraphMatches {
  const db = core.db;
  const named = matchingEntities(core, terms);
  const ids = json(named.map((e) => e.id));
  const label = containsAll(db, "relation_type", terms);
  const trait = containsAll(db, "trait || ' ' || value", terms);
  const count = (sql: string, ...params: unknown[]) =>
    db
      .prepare(sql)
      .pluck()
      .get(...params) as number;
  return {
    names: named.map((e) => e.name),
    entities: named.length,
    relations: count(
      `SELECT COUNT(*) FROM relations WHERE source_id IN (SELECT value FROM json_each(?))
         OR target_id IN (SELECT value FROM json_each(?)) OR ${label.sql}`,
      ids,
      ids,
      ...label.params,
    ),
    sentences: matchingSentenceIds(core, terms).length,
    traits: count(
      `SELECT COUNT(*) FROM person_traits WHERE entity_id IN (SELECT value FROM json_each(?)) OR ${trait.sql}`,
      ids,
      ...trait.params,
    ),
    types: typedWith(core, terms).length,
    rejections: rejections.countMentioning(terms),
  };
}

/** Removes from the graph every trace of text mentioning all the (lower-case) terms; see the file comment. */
export function forgetGraph(
  core: GraphCore,
  w: IndexWriter,
  rejections: FactRejections,
  terms: readonly string[],
): GraphForgetCounts {
  const counts: GraphForgetCounts = { entities: 0, relations: 0, sentences: 0, traits: 0, types: 0, rejections: 0 };
  for (const entity of matchingEntities(core, terms)) {
    const r = deleteEntity(core, w, entity.name);
    counts.entities += r.entities;
    counts.relations += r.relations;
    counts.sentences += r.sentences;
    counts.traits += r.traits;
    counts.rejections += rejections.forgetEntity(entity.name);
  }
  const cited = forgetSentenceIds(core, w, matchingSentenceIds(core, terms));
  counts.sentences += cited.sentences;
  counts.relations += cited.relations;
  const labelled = forgetLabels(core, w, terms);
  counts.relations += labelled.relations;
  counts.entities += labelled.entities;
  counts.sentences += labelled.sentences;
  const traits = forgetTraits(core, w, terms);
  counts.traits += traits.traits;
  counts.entities += traits.entities;
  counts.types = clearTypes(core, w, terms);
  counts.rejections += rejections.forgetMentioning(terms);
  return counts;
}

/** Entities whose name contains every term, whatever their state (soft-purged ones too). */
function matchingEntities(core: GraphCore, terms: readonly string[]) {
  const where = containsAll(core.db, "e.name", terms);
  return core.db
    .prepare(
      `SELECT e.id, e.name, e.type, e.mention_count, e.created_at, e.updated_at FROM entities e WHERE ${where.sql}`,
    )
    .all(...where.params)
    .map((r) => toEntity(r as Parameters<typeof toEntity>[0]));
}

/** Facts whose relation label mentions the terms; ends and sentences left with nothing go too. */
function forgetLabels(core: GraphCore, w: IndexWriter, terms: readonly string[]) {
  const label = containsAll(core.db, "relation_type", terms);
  const rows = core.db
    .prepare(`SELECT id, source_id, target_id, sentence_id FROM relations WHERE ${label.sql}`)
    .all(...label.params) as Array<{ id: number; source_id: number; target_id: number; sentence_id: number }>;
  if (rows.length === 0) return { relations: 0, entities: 0, sentences: 0 };
  core.db
    .prepare("DELETE FROM relations WHERE id IN (SELECT value FROM json_each(?))")
    .run(json(rows.map((r) => r.id)));
  const ends = rows.flatMap((r) => [r.source_id, r.target_id]);
  const orphans = core.removeOrphans(
    w,
    ends,
    rows.map((r) => r.sentence_id),
  );
  core.refreshIndex(w, ends);
  return { relations: rows.length, ...orphans };
}

/** Person traits whose name or value mentions the terms; a person left with nothing goes too. */
function forgetTraits(core: GraphCore, w: IndexWriter, terms: readonly string[]) {
  const trait = containsAll(core.db, "trait || ' ' || value", terms);
  const rows = core.db
    .prepare(`SELECT rowid, entity_id FROM person_traits WHERE ${trait.sql}`)
    .all(...trait.params) as Array<{ rowid: number; entity_id: number }>;
  if (rows.length === 0) return { traits: 0, entities: 0 };
  core.db
    .prepare("DELETE FROM person_traits WHERE rowid IN (SELECT value FROM json_each(?))")
    .run(json(rows.map((r) => r.rowid)));
  const people = rows.map((r) => r.entity_id);
  const orphans = core.removeOrphans(w, people);
  core.refreshIndex(w, people);
  return { traits: rows.length, entities: orphans.entities };
}

/** Entities whose (non-default) type mentions the terms. */
function typedWith(core: GraphCore, terms: readonly string[]): number[] {
  const type = containsAll(core.db, "type", terms);
  return core.db
    .prepare(`SELECT id FROM entities WHERE type <> ? AND ${type.sql}`)
    .pluck()
    .all(DEFAULT_TYPE, ...type.params) as number[];
}

/** A type is a label, not the entity: the entity stays with the default type. */
function clearTypes(core: GraphCore, w: IndexWriter, terms: readonly string[]): number {
  const ids = typedWith(core, terms);
  if (ids.length === 0) return 0;
  core.db
    .prepare("UPDATE entities SET type = ? WHERE id IN (SELECT value FROM json_each(?))")
    .run(DEFAULT_TYPE, json(ids));
  core.refreshIndex(w, ids);
  return ids.length;
}
