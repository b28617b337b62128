/**
 * Everything that takes facts out of the graph: merge, purge (soft or hard), edit, deleteFact and
 * deleteEntity. Each runs in one SearchIndex.write transaction, so the rows and the `ent:` search items
 * change together: a forgotten entity can no longer be found by keyword or vector, and a crash (or a
 * failing write halfway) leaves either all or none.
 */
import { type CleanTriple, type EntityRow, entityItemId, type GraphCore, type IndexWriter } from "./core.js";
import { containsPattern, GraphError, normalizeName } from "./rules.js";

export interface PurgeFilter {
  /** Facts whose subject name contains this. */
  subjectContains?: string;
  /** Facts of exactly this relation (case-insensitive); "trait:<name>" also matches that person trait. */
  relationType?: string;
  /** Facts whose object name contains this. */
  targetContains?: string;
  /** soft: mark the facts deleted (recoverable, still on disk); hard (default): delete the rows. */
  mode?: "soft" | "hard";
}

export interface PurgeResult {
  mode: "soft" | "hard";
  relations: number;
  /** hard: entities deleted because nothing refers to them any more; soft: entities hidden. */
  entities: number;
  sentences: number;
  traits: number;
  /** Up to 20 of the facts removed, for the caller to show. */
  removed: Array<{ subject: string; relation: string; object: string }>;
}

export interface DeleteResult {
  entities: number;
  relations: number;
  sentences: number;
  traits: number;
}

const SHOWN = 20;
const TRAIT_PREFIX = "trait:";

interface MatchRow {
  id: number;
  source_id: number;
  target_id: number;
  sentence_id: number;
  subject: string;
  relation: string;
  object: string;
}

export function mergeEntities(
  core: GraphCore,
  w: IndexWriter,
  sourceName: string,
  targetName: string,
  now: number,
): { relations: number; dropped: number } {
  const source = mustFind(core, sourceName, "source");
  const target = mustFind(core, targetName, "target");
  if (source.id === target.id) {
    throw new GraphError({
      code: "graph_bad_argument",
      message: `"${source.name}" and "${target.name}" are the same entity: nothing to merge`,
    });
  }
  const db = core.db;
  const s = source.id;
  const t = target.id;
  let relations = 0;
  let dropped = 0;
  // A fact the target already has (same other end, type and session) is not duplicated: the target's copy
  // stays, reactivated if only the source's was active.
  for (const [end, other] of [
    ["source_id", "target_id"],
    ["target_id", "source_id"],
  ] as const) {
    const twin = `SELECT 1 FROM relations y WHERE y.${end} = @s AND y.${other} = relations.${other}
                   AND y.relation_type = relations.relation_type AND y.session_id = relations.session_id`;
    db.prepare(
      `UPDATE relations SET status = 'active', updated_at = @now
       WHERE ${end} = @t AND status <> 'active' AND EXISTS (${twin} AND y.status = 'active')`,
    ).run({ s, t, now });
    dropped += db
      .prepare(
        `DELETE FROM relations WHERE ${end} = @s AND EXISTS (
           SELECT 1 FROM relations x WHERE x.${end} = @t AND x.${other} = relations.${other}
             AND x.relation_type = relations.relation_type AND x.session_id = relations.session_id)`,
      )
      .run({ s, t }).changes;
    relations += db
      .prepare(`UPDATE relations SET ${end} = @t, updated_at = @now WHERE ${end} = @s`)
      .run({ s, t, now }).changes;
  }
  dropped += db.prepare("DELETE FROM relations WHERE source_id = ? AND target_id = ?").run(t, t).changes;
  db.prepare(
    `INSERT INTO person_traits (entity_id, trait, value, updated_at)
     SELECT ?, trait, value, updated_at FROM person_traits WHERE entity_id = ? ON CONFLICT DO NOTHING`,
  ).run(t, s);
  const type = target.type === "Concept" ? source.type : target.type;
  db.prepare("UPDATE entities SET mention_count = mention_count + ?, type = ?, updated_at = ? WHERE id = ?").run(
    source.mention_count,
    type,
    now,
    t,
  );
  db.prepare("DELETE FROM entities WHERE id = ?").run(s);
  w.remove([entityItemId(s)]);
  core.refreshIndex(w, [t]);
  return { relations, dropped };
}

export function purgeFacts(core: GraphCore, w: IndexWriter, f: PurgeFilter, now: number): PurgeResult {
  const mode = f.mode ?? "hard";
  if (mode !== "soft" && mode !== "hard") {
    throw new GraphError({ code: "graph_bad_argument", message: `mode must be "soft" or "hard", got "${mode}"` });
  }
  const subject = normalizeName(f.subjectContains ?? "");
  const relation = normalizeName(f.relationType ?? "");
  const object = normalizeName(f.targetContains ?? "");
  if (!subject && !relation && !object) {
    throw new GraphError({
      code: "graph_bad_argument",
      message:
        "give at least one of subject_contains, relation_type, target_contains: purging everything is not allowed",
    });
  }
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    where.push(sql);
    params.push(value);
  };
  if (subject) add("s.name LIKE ? ESCAPE '\\'", containsPattern(subject));
  if (relation) add("r.relation_type = ? COLLATE NOCASE", relation);
  if (object) add("t.name LIKE ? ESCAPE '\\'", containsPattern(object));
  // Hard purge also removes what an earlier soft purge only marked.
  if (mode === "soft") where.push("r.status = 'active'");
  const rows = core.db
    .prepare<unknown[], MatchRow>(
      `SELECT r.id, r.source_id, r.target_id, r.sentence_id, s.name AS subject, r.relation_type AS relation,
              t.name AS object
       FROM relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id
       WHERE ${where.join(" AND ")}`,
    )
    .all(...params);
  const ids = JSON.stringify(rows.map((r) => r.id));
  const touched = rows.flatMap((r) => [r.source_id, r.target_id]);
  const result: PurgeResult = {
    mode,
    relations: rows.length,
    entities: 0,
    sentences: 0,
    traits: 0,
    removed: rows.slice(0, SHOWN).map(({ subject, relation, object }) => ({ subject, relation, object })),
  };
  if (mode === "soft") {
    core.db
      .prepare("UPDATE relations SET status = 'deleted', updated_at = ? WHERE id IN (SELECT value FROM json_each(?))")
      .run(now, ids);
    // Every touched entity was visible (it had the active fact just marked): count those that are not now.
    result.entities = new Set(touched).size - core.visible(touched).length;
    core.refreshIndex(w, touched);
    return result;
  }
  core.db.prepare("DELETE FROM relations WHERE id IN (SELECT value FROM json_each(?))").run(ids);
  const traits = purgeTraits(core, subject, relation, object);
  result.traits = traits.count;
  const orphans = core.removeOrphans(
    w,
    [...touched, ...traits.entities],
    rows.map((r) => r.sentence_id),
  );
  result.entities = orphans.entities;
  result.sentences = orphans.sentences;
  core.refreshIndex(w, [...touched, ...traits.entities]);
  return result;
}

/** Person traits matching a hard purge: relation "trait:<name>" (or none), subject / value containing the terms. */
function purgeTraits(
  core: GraphCore,
  subject: string,
  relation: string,
  object: string,
): { count: number; entities: number[] } {
  if (relation && !relation.toLowerCase().startsWith(TRAIT_PREFIX)) return { count: 0, entities: [] };
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    where.push(sql);
    params.push(value);
  };
  if (subject) add("e.name LIKE ? ESCAPE '\\'", containsPattern(subject));
  if (relation) add("t.trait = ?", relation.slice(TRAIT_PREFIX.length).trim());
  if (object) add("t.value LIKE ? ESCAPE '\\'", containsPattern(object));
  const rows = core.db
    .prepare<unknown[], { entity_id: number; trait: string }>(
      `SELECT t.entity_id, t.trait FROM person_traits t JOIN entities e ON e.id = t.entity_id
       WHERE ${where.join(" AND ")}`,
    )
    .all(...params);
  const del = core.db.prepare("DELETE FROM person_traits WHERE entity_id = ? AND trait = ?");
  for (const r of rows) del.run(r.entity_id, r.trait);
  return { count: rows.length, entities: rows.map((r) => r.entity_id) };
}

/**
 * Replaces every copy (any session) of one fact by its edited form: the old rows are deleted, the new
 * fact committed, and entities or sentences left with nothing are removed afterwards — not before, so an
 * entity that stays keeps its mention count.
 */
export function editFact(
  core: GraphCore,
  w: IndexWriter,
  old: { subject: string; relation: string; object: string },
  next: CleanTriple,
  commit: (t: CleanTriple) => number[],
): { removed: number } {
  const rows = factRows(core, old);
  deleteRows(core, rows);
  const added = commit(next);
  tidyAfter(core, w, rows, added);
  return { removed: rows.length };
}

/** Deletes every copy (any session) of one fact; entities and sentences left with nothing go too. */
export function deleteFact(
  core: GraphCore,
  w: IndexWriter,
  old: { subject: string; relation: string; object: string },
): { removed: number } {
  const rows = factRows(core, old);
  deleteRows(core, rows);
  tidyAfter(core, w, rows, []);
  return { removed: rows.length };
}

/** Every copy of the fact, exactly by its names (relation case-insensitive); none is refused as not found. */
function factRows(core: GraphCore, old: { subject: string; relation: string; object: string }): MatchRow[] {
  const rows = core.db
    .prepare<[string, string, string], MatchRow>(
      `SELECT r.id, r.source_id, r.target_id, r.sentence_id, s.name AS subject, r.relation_type AS relation,
              t.name AS object
       FROM relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id
       WHERE s.name = ? AND r.relation_type = ? COLLATE NOCASE AND t.name = ?`,
    )
    .all(old.subject, old.relation, old.object);
  if (rows.length === 0) {
    throw new GraphError({
      code: "graph_not_found",
      message: `no fact "${old.subject} ${old.relation} ${old.object}" in memory: look it up with memory_recall and use its exact names`,
    });
  }
  return rows;
}

function deleteRows(core: GraphCore, rows: readonly MatchRow[]): void {
  core.db
    .prepare("DELETE FROM relations WHERE id IN (SELECT value FROM json_each(?))")
    .run(JSON.stringify(rows.map((r) => r.id)));
}

/** Removes what the deleted rows left with nothing, and brings the touched entities' search items in line. */
function tidyAfter(core: GraphCore, w: IndexWriter, rows: readonly MatchRow[], added: readonly number[]): void {
  const touched = rows.flatMap((r) => [r.source_id, r.target_id]);
  core.removeOrphans(
    w,
    touched,
    rows.map((r) => r.sentence_id),
  );
  core.refreshIndex(w, [...touched, ...added]);
}

/**
 * Removes an entity with everything about it: its relations, its traits, the source sentences that name
 * it, neighbours and sentences left with nothing, and its search item.
 */
export function deleteEntity(core: GraphCore, w: IndexWriter, name: string): DeleteResult {
  const entity = mustFind(core, name, "entity");
  const db = core.db;
  const rows = db
    .prepare<[number, number], { id: number; source_id: number; target_id: number; sentence_id: number }>(
      "SELECT id, source_id, target_id, sentence_id FROM relations WHERE source_id = ? OR target_id = ?",
    )
    .all(entity.id, entity.id);
  db.prepare("DELETE FROM relations WHERE source_id = ? OR target_id = ?").run(entity.id, entity.id);
  const naming = db
    .prepare<[string], { id: number }>("SELECT id FROM sentences WHERE text LIKE ? ESCAPE '\\'")
    .all(containsPattern(entity.name))
    .map((r) => r.id);
  if (naming.length > 0) {
    const list = JSON.stringify(naming);
    db.prepare("UPDATE relations SET sentence_id = 0 WHERE sentence_id IN (SELECT value FROM json_each(?))").run(list);
    db.prepare("DELETE FROM sentences WHERE id IN (SELECT value FROM json_each(?))").run(list);
  }
  const traits = db.prepare("DELETE FROM person_traits WHERE entity_id = ?").run(entity.id).changes;
  db.prepare("DELETE FROM entities WHERE id = ?").run(entity.id);
  w.remove([entityItemId(entity.id)]);
  const neighbours = rows.flatMap((r) => [r.source_id, r.target_id]).filter((id) => id !== entity.id);
  const orphans = core.removeOrphans(
    w,
    neighbours,
    rows.map((r) => r.sentence_id),
  );
  core.refreshIndex(w, neighbours);
  return {
    entities: 1 + orphans.entities,
    relations: rows.length,
    sentences: naming.length + orphans.sentences,
    traits,
  };
}

function mustFind(core: GraphCore, name: string, what: string): EntityRow {
  const clean = normalizeName(name);
  const row = clean ? core.entityByName(clean) : undefined;
  if (!row) {
    throw new GraphError({
      code: "graph_not_found",
      message: `${what} "${clean}" is not in memory: check the exact name with memory_recall`,
    });
  }
  return row;
}
