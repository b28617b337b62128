/**
 * One page of the graph for the web UI's graph view (`sdk.memory.graph`): the most mentioned entities and
 * the active facts touching them. Only visible entities count (those with an active fact or a trait, as
 * recall sees them): soft-purged ones stay out of sight here too, and `total` counts the same set, so
 * paging by `offset` reaches every node exactly once.
 */
import type { MemoryGraphPage } from "@homeagent/sdk";
import { cachedStatement } from "../../util/statements.js";
import { intArg, MemoryArgumentError } from "../api-args.js";
import type { DB } from "../store.js";
import { entityOut, relationOut } from "./api-shapes.js";
import { ALIVE, ENTITY_COLUMNS, type EntityRow, RELATION_SELECT, toEntity, toRelation } from "./core.js";

export const GRAPH_PAGE_LIMITS = {
  defaultLimit: 200,
  maxLimit: 1000,
  /**
   * Edges of one page at most. A hub entity can carry thousands of facts; past this the page keeps the
   * facts between two nodes of the page first, then the newest.
   */
  maxEdges: 5000,
} as const;

const NODES = `SELECT ${ENTITY_COLUMNS} FROM entities e WHERE ${ALIVE}
  ORDER BY e.mention_count DESC, e.name, e.id LIMIT ? OFFSET ?`;
const TOTAL = `SELECT COUNT(*) FROM entities e WHERE ${ALIVE}`;
const ON_PAGE = "IN (SELECT value FROM json_each(@ids))";
const EDGES = `${RELATION_SELECT}
  WHERE r.status = 'active' AND (r.source_id ${ON_PAGE} OR r.target_id ${ON_PAGE})
  ORDER BY (r.source_id ${ON_PAGE} AND r.target_id ${ON_PAGE}) DESC, r.updated_at DESC, r.id DESC
  LIMIT @max`;

export function graphPage(db: DB, opts: { offset?: number; limit?: number } | undefined): MemoryGraphPage {
  if (opts !== undefined && (typeof opts !== "object" || opts === null)) {
    throw new MemoryArgumentError("graph takes {offset?, limit?}");
  }
  const offset = intArg("offset", opts?.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = intArg("limit", opts?.limit, GRAPH_PAGE_LIMITS.defaultLimit, 1, GRAPH_PAGE_LIMITS.maxLimit);
  return db.transaction(() => {
    const rows = cachedStatement<[number, number], EntityRow>(db, NODES).all(limit, offset);
    const total = cachedStatement(db, TOTAL).pluck().get() as number;
    const ids = JSON.stringify(rows.map((r) => r.id));
    const edges =
      rows.length === 0
        ? []
        : cachedStatement(db, EDGES)
            .all({ ids, max: GRAPH_PAGE_LIMITS.maxEdges })
            .map((r) => relationOut(toRelation(r as Parameters<typeof toRelation>[0])));
    return { nodes: rows.map((r) => entityOut(toEntity(r))), edges, total };
  })();
}
