/**
 * Graph recall (inventory §5.3): entities whose names contain a keyword, plus exact seed names, then a
 * breadth-first walk over active relations. Bounded: a hub entity with thousands of relations must not
 * turn one recall into the whole graph, so entities and relations stop at caps (closest hops first) and
 * the result says it was cut.
 */

import { cachedStatement } from "../../util/statements.js";
import type { DB } from "../store.js";
import {
  ALIVE,
  ENTITY_COLUMNS,
  type Entity,
  type EntityRow,
  RELATION_SELECT,
  type Relation,
  type Trait,
  toEntity,
  toRelation,
} from "./core.js";
import { containsPattern, GraphError, MAX_DEPTH, MAX_KEYWORDS, normalizeName } from "./rules.js";

export interface RecallLimits {
  /** Most entities returned (default 100). */
  maxEntities?: number;
  /** Most relations returned (default 200). */
  maxRelations?: number;
}

export interface RecallResult {
  entities: Entity[];
  relations: Relation[];
  /** Traits of the returned entities (people). */
  traits: Trait[];
  /** True when a cap stopped the walk: more is connected than returned. */
  truncated: boolean;
}

const DEFAULT_MAX_ENTITIES = 100;
const DEFAULT_MAX_RELATIONS = 200;
/** With nothing to look for: the most mentioned entities and the newest facts, as the original does. */
const OVERVIEW_ENTITIES = 50;
const OVERVIEW_RELATIONS = 30;
const MAX_TRAITS = 200;
const LIMIT_CEILING = 1000;

export function recallGraph(
  db: DB,
  keywords: readonly string[],
  seeds: readonly string[],
  depth: number,
  limits: RecallLimits = {},
): RecallResult {
  if (!Number.isInteger(depth) || depth < 0 || depth > MAX_DEPTH) {
    throw new GraphError({
      code: "graph_bad_argument",
      message: `depth must be an integer from 0 to ${MAX_DEPTH}, got ${depth}`,
    });
  }
  const maxEntities = limit(limits.maxEntities, DEFAULT_MAX_ENTITIES, "maxEntities");
  const maxRelations = limit(limits.maxRelations, DEFAULT_MAX_RELATIONS, "maxRelations");
  const words = unique(keywords.map(normalizeName).filter(Boolean));
  const names = unique(seeds.map(normalizeName).filter(Boolean));
  if (words.length + names.length > MAX_KEYWORDS) {
    throw new GraphError({
      code: "graph_limit",
      message: `recall takes at most ${MAX_KEYWORDS} keywords and names, got ${words.length + names.length}: pick the most specific ones`,
    });
  }
  if (words.length === 0 && names.length === 0) return overview(db, Math.min(maxEntities, OVERVIEW_ENTITIES));
  // One read transaction for the dozen small queries: each would otherwise take and release the WAL's
  // read lock on its own (≈ 5 µs apiece, as much as the query).
  return db.transaction(() => {
    // Matches take at most half the entity cap when there is a walk, so a broad keyword leaves it room.
    const matchCap = depth > 0 ? Math.max(1, Math.floor(maxEntities / 2)) : maxEntities;
    const found = new Map<number, Entity>();
    for (const row of matchEntities(db, words, names, matchCap)) found.set(row.id, toEntity(row));
    const relations: Relation[] = [];
    let truncated = false;
    let frontier = [...found.keys()];
    for (let hop = 0; hop < depth && frontier.length > 0 && !truncated; hop++) {
      const step = walk(db, frontier, relations, found, maxEntities, maxRelations);
      frontier = step.next;
      truncated = step.truncated;
    }
    const entities = [...found.values()];
    return { entities, relations, traits: traitsOf(db, entities), truncated };
  })();
}

function matchEntities(db: DB, words: string[], names: string[], cap: number): EntityRow[] {
  const rows: EntityRow[] = [];
  if (words.length > 0) {
    const like = words.map(() => "e.name LIKE ? ESCAPE '\\'").join(" OR ");
    rows.push(
      ...cachedStatement<unknown[], EntityRow>(
        db,
        `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE (${like}) AND ${ALIVE}
           ORDER BY e.mention_count DESC, e.id DESC LIMIT ?`,
      ).all(...words.map(containsPattern), cap),
    );
  }
  if (names.length > 0) {
    rows.push(
      ...cachedStatement<[string], EntityRow>(
        db,
        `SELECT ${ENTITY_COLUMNS} FROM entities e
           WHERE e.name IN (SELECT value FROM json_each(?)) AND ${ALIVE}`,
      ).all(JSON.stringify(names)),
    );
  }
  const seen = new Set<number>();
  return rows.filter((r) => !seen.has(r.id) && seen.add(r.id)).slice(0, cap);
}

/** One hop: the active relations touching the frontier not taken yet, best first, within the caps. */
function walk(
  db: DB,
  frontier: number[],
  relations: Relation[],
  found: Map<number, Entity>,
  maxEntities: number,
  maxRelations: number,
): { next: number[]; truncated: boolean } {
  const taken = relations.map((r) => r.id);
  const room = maxRelations - relations.length;
  if (room <= 0) return { next: [], truncated: true };
  // Two index searches (by source, by target): an OR over both columns would scan every fact. UNION ALL
  // inside IN, because IN de-duplicates anyway and a UNION would sort both sides first.
  const rows = cachedStatement(
    db,
    `${RELATION_SELECT.trim()}
       WHERE r.id IN (
           SELECT a.id FROM relations a
             WHERE a.source_id IN (SELECT value FROM json_each(@frontier)) AND a.status = 'active'
           UNION ALL
           SELECT b.id FROM relations b
             WHERE b.target_id IN (SELECT value FROM json_each(@frontier)) AND b.status = 'active')
         AND r.id NOT IN (SELECT value FROM json_each(@taken))
       ORDER BY r.confidence DESC, r.updated_at DESC, r.id
       LIMIT @limit`,
  )
    .all({ frontier: JSON.stringify(frontier), taken: JSON.stringify(taken), limit: room + 1 })
    .map((r) => toRelation(r as Parameters<typeof toRelation>[0]));
  const next: number[] = [];
  let truncated = rows.length > room;
  for (const rel of rows.slice(0, room)) {
    const fresh = [rel.sourceId, rel.targetId].filter((id) => !found.has(id) && !next.includes(id));
    if (found.size + next.length + fresh.length > maxEntities) {
      truncated = true;
      break;
    }
    next.push(...fresh);
    relations.push(rel);
  }
  for (const row of entitiesById(db, next)) found.set(row.id, toEntity(row));
  return { next, truncated };
}

function overview(db: DB, entityCap: number): RecallResult {
  const entities = cachedStatement<[number], EntityRow>(
    db,
    `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE ${ALIVE}
       ORDER BY e.mention_count DESC, e.id DESC LIMIT ?`,
  )
    .all(entityCap)
    .map(toEntity);
  const relations = cachedStatement(
    db,
    `${RELATION_SELECT} WHERE r.status = 'active' ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
  )
    .all(OVERVIEW_RELATIONS)
    .map((r) => toRelation(r as Parameters<typeof toRelation>[0]));
  return { entities, relations, traits: traitsOf(db, entities), truncated: false };
}

function entitiesById(db: DB, ids: number[]): EntityRow[] {
  if (ids.length === 0) return [];
  const rows = cachedStatement<[string], EntityRow>(
    db,
    `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE e.id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export function traitsOf(db: DB, entities: readonly Entity[]): Trait[] {
  if (entities.length === 0) return [];
  return cachedStatement<[string, number], { entity: string; trait: string; value: string; updated_at: number }>(
    db,
    `SELECT e.name AS entity, t.trait, t.value, t.updated_at FROM person_traits t
       JOIN entities e ON e.id = t.entity_id
       WHERE t.entity_id IN (SELECT value FROM json_each(?))
       ORDER BY e.name, t.trait LIMIT ?`,
  )
    .all(JSON.stringify(entities.map((e) => e.id)), MAX_TRAITS)
    .map((t) => ({ entity: t.entity, trait: t.trait, value: t.value, updatedAt: t.updated_at }));
}

function limit(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > LIMIT_CEILING) {
    throw new GraphError({
      code: "graph_bad_argument",
      message: `${what} must be an integer from 1 to ${LIMIT_CEILING}, got ${value}`,
    });
  }
  return value;
}

function unique(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = v.toLowerCase();
    return !seen.has(key) && seen.add(key);
  });
}
