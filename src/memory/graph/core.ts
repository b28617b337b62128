/**
 * The shared inside of the graph layer: row shapes, prepared statements, the commit of one triple and the
 * bookkeeping that keeps the `ent:<id>` search items in step with the entities table. GraphDB (the
 * public API) and its removal operations are built on it, so every write path goes through the same
 * upsert and index rules.
 */
import type { IndexWriter, ItemInput, SearchIndex } from "../../retrieval/search.js";
import type { DB } from "../store.js";

export type { IndexWriter } from "../../retrieval/search.js";

export interface Triple {
  subject: string;
  relation: string;
  object: string;
  /** Entity types ("Person", "Place" …); default Concept. A non-Concept type replaces a Concept one. */
  subjectType?: string;
  objectType?: string;
  /** 0–1, default 1. */
  confidence?: number;
}

export interface Entity {
  id: number;
  name: string;
  type: string;
  mentionCount: number;
  createdAt: number;
  updatedAt: number;
}

export interface Relation {
  id: number;
  sourceId: number;
  targetId: number;
  subject: string;
  relation: string;
  object: string;
  confidence: number;
  status: "active" | "deleted" | "archived";
  sessionId: string;
  turnId: number;
  createdAt: number;
  updatedAt: number;
  dateBucket: string;
  /** The sentence the fact was taken from, when one was given. */
  sentence: string | null;
}

export interface Trait {
  entity: string;
  trait: string;
  value: string;
  updatedAt: number;
}

export interface EntityRow {
  id: number;
  name: string;
  type: string;
  mention_count: number;
  created_at: number;
  updated_at: number;
}

interface RelationRow {
  id: number;
  source_id: number;
  target_id: number;
  subject: string;
  relation: string;
  object: string;
  confidence: number;
  status: Relation["status"];
  session_id: string;
  turn_id: number;
  created_at: number;
  updated_at: number;
  date_bucket: string;
  sentence: string | null;
}

export const ENTITY_KIND = "entity";
const ITEM_PREFIX = "ent:";

export function entityItemId(id: number): string {
  return `${ITEM_PREFIX}${id}`;
}

/** The entity id of an `ent:<id>` search item, or null for any other item. */
export function entityIdOfItem(itemId: string): number | null {
  if (!itemId.startsWith(ITEM_PREFIX)) return null;
  const id = Number(itemId.slice(ITEM_PREFIX.length));
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

export const ENTITY_COLUMNS = "e.id, e.name, e.type, e.mention_count, e.created_at, e.updated_at";

export const RELATION_SELECT = `
  SELECT r.id, r.source_id, r.target_id, s.name AS subject, r.relation_type AS relation, t.name AS object,
         r.confidence, r.status, r.session_id, r.turn_id, r.created_at, r.updated_at, r.date_bucket,
         sn.text AS sentence
  FROM relations r
  JOIN entities s ON s.id = r.source_id
  JOIN entities t ON t.id = r.target_id
  LEFT JOIN sentences sn ON sn.id = r.sentence_id`;

/**
 * An entity is visible (to recall, the prompt, the vector index) while it has an active relation or a
 * trait. Soft-purged facts leave their entities in the table but out of sight.
 */
export const ALIVE = `(
  EXISTS (SELECT 1 FROM relations ra WHERE ra.source_id = e.id AND ra.status = 'active')
  OR EXISTS (SELECT 1 FROM relations rb WHERE rb.target_id = e.id AND rb.status = 'active')
  OR EXISTS (SELECT 1 FROM person_traits pt WHERE pt.entity_id = e.id))`;

/** An entity nothing refers to: no relation of any status, no trait. */
const ORPHAN = `NOT EXISTS (SELECT 1 FROM relations ra WHERE ra.source_id = e.id)
  AND NOT EXISTS (SELECT 1 FROM relations rb WHERE rb.target_id = e.id)
  AND NOT EXISTS (SELECT 1 FROM person_traits pt WHERE pt.entity_id = e.id)`;

export function toEntity(r: EntityRow): Entity {
  return {
    id: r.id,
    name: r.name,
    type: r.type,
    mentionCount: r.mention_count,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toRelation(r: RelationRow): Relation {
  return {
    id: r.id,
    sourceId: r.source_id,
    targetId: r.target_id,
    subject: r.subject,
    relation: r.relation,
    object: r.object,
    confidence: r.confidence,
    status: r.status,
    sessionId: r.session_id,
    turnId: r.turn_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    dateBucket: r.date_bucket,
    sentence: r.sentence,
  };
}

/** A checked triple, ready to write: names normalised, types and confidence resolved. */
export interface CleanTriple {
  subject: string;
  relation: string;
  object: string;
  subjectType: string | null;
  objectType: string | null;
  confidence: number;
}

export interface WriteContext {
  now: number;
  sessionId: string;
  turnId: number;
  dateBucket: string;
  sentenceId: number;
}

function prepareStatements(db: DB) {
  return {
    byName: db.prepare<[string], EntityRow>(`SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.name = ?`),
    byId: db.prepare<[number], EntityRow>(`SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.id = ?`),
    visible: db.prepare<[string], { id: number }>(
      `SELECT e.id FROM entities e WHERE e.id IN (SELECT value FROM json_each(?)) AND ${ALIVE}`,
    ),
    alive: db.prepare<[number], { alive: number }>(`SELECT ${ALIVE} AS alive FROM entities e WHERE e.id = ?`),
    insertEntity: db.prepare<[string, string, number, number]>(
      "INSERT INTO entities (name, type, mention_count, created_at, updated_at) VALUES (?, ?, 1, ?, ?)",
    ),
    mention: db.prepare<[string, number, number]>(
      "UPDATE entities SET mention_count = mention_count + 1, type = ?, updated_at = ? WHERE id = ?",
    ),
    findRelation: db.prepare<[number, number, string, string], { id: number }>(
      "SELECT id FROM relations WHERE source_id = ? AND target_id = ? AND relation_type = ? AND session_id = ?",
    ),
    insertRelation: db.prepare(
      `INSERT INTO relations (source_id, target_id, relation_type, confidence, status, session_id, turn_id,
                                created_at, updated_at, date_bucket, sentence_id)
         VALUES (?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?)`,
    ),
    refreshRelation: db.prepare(
      `UPDATE relations SET confidence = ?, status = 'active', turn_id = ?, updated_at = ?, date_bucket = ?,
                sentence_id = CASE WHEN ? > 0 THEN ? ELSE sentence_id END
         WHERE id = ?`,
    ),
    insertSentence: db.prepare<[string, number]>(
      "INSERT INTO sentences (text, created_at) VALUES (?, ?) ON CONFLICT(text) DO NOTHING",
    ),
    sentenceId: db.prepare<[string], { id: number }>("SELECT id FROM sentences WHERE text = ?"),
    orphanEntities: db.prepare<[string], { id: number }>(
      `SELECT e.id FROM entities e WHERE e.id IN (SELECT value FROM json_each(?)) AND ${ORPHAN}`,
    ),
    deleteEntities: db.prepare<[string]>("DELETE FROM entities WHERE id IN (SELECT value FROM json_each(?))"),
    deleteOrphanSentences: db.prepare<[string]>(
      `DELETE FROM sentences WHERE id IN (SELECT value FROM json_each(?))
           AND NOT EXISTS (SELECT 1 FROM relations r WHERE r.sentence_id = sentences.id)`,
    ),
  };
}

export class GraphCore {
  private readonly stmts: ReturnType<typeof prepareStatements>;

  constructor(
    readonly db: DB,
    readonly index: SearchIndex,
  ) {
    this.stmts = prepareStatements(db);
  }

  entityByName(name: string): EntityRow | undefined {
    return this.stmts.byName.get(name);
  }

  entityById(id: number): EntityRow | undefined {
    return this.stmts.byId.get(id);
  }

  /** The ids among `ids` of entities that are visible (see ALIVE). */
  visible(ids: Iterable<number>): number[] {
    return this.stmts.visible.all(JSON.stringify([...new Set(ids)])).map((r) => r.id);
  }

  sentenceId(text: string, now: number): number {
    this.stmts.insertSentence.run(text, now);
    return this.stmts.sentenceId.get(text)?.id ?? 0;
  }

  /** Inserts the entity (mention_count 1) or counts one more mention; returns its id and whether it is new. */
  upsertEntity(name: string, type: string | null, now: number): { id: number; created: boolean } {
    const row = this.stmts.byName.get(name);
    if (!row) {
      const id = Number(this.stmts.insertEntity.run(name, type ?? "Concept", now, now).lastInsertRowid);
      return { id, created: true };
    }
    const nextType = type && type !== "Concept" ? type : row.type;
    this.stmts.mention.run(nextType, now, row.id);
    return { id: row.id, created: false };
  }

  /** Writes one relation, or refreshes (and reactivates) the one of the same session; true when new. */
  upsertRelation(sourceId: number, targetId: number, t: CleanTriple, w: WriteContext): boolean {
    const existing = this.stmts.findRelation.get(sourceId, targetId, t.relation, w.sessionId);
    if (existing) {
      this.stmts.refreshRelation.run(
        t.confidence,
        w.turnId,
        w.now,
        w.dateBucket,
        w.sentenceId,
        w.sentenceId,
        existing.id,
      );
      return false;
    }
    this.stmts.insertRelation.run(
      sourceId,
      targetId,
      t.relation,
      t.confidence,
      w.sessionId,
      w.turnId,
      w.now,
      w.now,
      w.dateBucket,
      w.sentenceId,
    );
    return true;
  }

  /**
   * Brings the search items of these entities in line with the table: a visible entity has its item (name
   * and type), a hidden or deleted one has none — so nothing forgotten can still be found by vector.
   */
  refreshIndex(w: IndexWriter, ids: Iterable<number>): void {
    const gone: string[] = [];
    const upserts: ItemInput[] = [];
    for (const id of new Set(ids)) {
      const itemId = entityItemId(id);
      const row = this.stmts.byId.get(id);
      if (!row || this.stmts.alive.get(id)?.alive !== 1) {
        if (this.index.get(itemId)) gone.push(itemId);
        continue;
      }
      const text = itemText(row);
      if (this.index.get(itemId)?.text === text) continue;
      upserts.push({
        id: itemId,
        kind: ENTITY_KIND,
        text,
        ts: row.created_at,
        meta: { name: row.name, type: row.type },
      });
    }
    if (gone.length > 0) w.remove(gone);
    if (upserts.length > 0) w.upsert(upserts);
  }

  /**
   * Deletes the entities among `ids` that nothing refers to any more (and their search items), and the
   * sentences among `sentenceIds` no relation cites. Returns the counts.
   */
  removeOrphans(
    w: IndexWriter,
    ids: Iterable<number>,
    sentenceIds: Iterable<number> = [],
  ): { entities: number; sentences: number } {
    const orphans = this.stmts.orphanEntities.all(JSON.stringify([...new Set(ids)])).map((r) => r.id);
    if (orphans.length > 0) {
      this.stmts.deleteEntities.run(JSON.stringify(orphans));
      w.remove(orphans.map(entityItemId));
    }
    const sentences = [...new Set(sentenceIds)].filter((id) => id > 0);
    const removed = sentences.length > 0 ? this.stmts.deleteOrphanSentences.run(JSON.stringify(sentences)).changes : 0;
    return { entities: orphans.length, sentences: removed };
  }
}

/** What the vector index sees of an entity: its name, and its type unless that is the default. */
function itemText(row: EntityRow): string {
  return row.type === "Concept" ? row.name : `${row.name} (${row.type})`;
}
