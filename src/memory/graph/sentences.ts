/**
 * The source sentences facts cite, and their lifecycle apart from the facts themselves: the review loop
 * reads the facts that still cite one and then drops the citations, and forgetting removes the sentences
 * that mention something together with the facts taken from them. Split from graph.ts, which keeps the
 * writes of facts and entities; each function here runs inside the caller's SearchIndex.write.
 */

import { containsAll } from "../statements.js";
import { type GraphCore, type IndexWriter, RELATION_SELECT, type Relation, toRelation } from "./core.js";

/** Active facts that still cite their source sentence, oldest first: what the review loop checks. */
export function relationsWithSentences(core: GraphCore, limit: number): Relation[] {
  return core.db
    .prepare(`${RELATION_SELECT} WHERE r.status = 'active' AND r.sentence_id > 0 ORDER BY r.updated_at, r.id LIMIT ?`)
    .all(limit)
    .map((r) => toRelation(r as Parameters<typeof toRelation>[0]));
}

/** Drops the sentence citations of these facts and the sentences nothing cites any more; returns those. */
export function clearCitations(core: GraphCore, w: IndexWriter, relationIds: readonly number[]): number {
  const list = JSON.stringify(relationIds);
  const cited = core.db
    .prepare("SELECT sentence_id FROM relations WHERE id IN (SELECT value FROM json_each(?))")
    .pluck()
    .all(list) as number[];
  core.db.prepare("UPDATE relations SET sentence_id = 0 WHERE id IN (SELECT value FROM json_each(?))").run(list);
  return core.removeOrphans(w, [], cited).sentences;
}

/** Source sentences whose text mentions every term, as forgetting matches (containsAll). */
export function matchingSentenceIds(core: GraphCore, terms: readonly string[]): number[] {
  const where = containsAll(core.db, "text", terms);
  return core.db
    .prepare(`SELECT id FROM sentences WHERE ${where.sql}`)
    .pluck()
    .all(...where.params) as number[];
}

/** Deletes these sentences and the facts taken from them; entities left with nothing go too. */
export function forgetSentenceIds(
  core: GraphCore,
  w: IndexWriter,
  ids: readonly number[],
): { sentences: number; relations: number } {
  const list = JSON.stringify(ids);
  const ends = core.db
    .prepare("SELECT source_id, target_id FROM relations WHERE sentence_id IN (SELECT value FROM json_each(?))")
    .all(list) as Array<{ source_id: number; target_id: number }>;
  const relations = core.db
    .prepare("DELETE FROM relations WHERE sentence_id IN (SELECT value FROM json_each(?))")
    .run(list).changes;
  const removed = core.removeOrphans(
    w,
    ends.flatMap((e) => [e.source_id, e.target_id]),
    ids,
  );
  return { sentences: removed.sentences, relations };
}
