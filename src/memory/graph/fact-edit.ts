/**
 * Correcting one fact the user can see (`sdk.memory.editFact` / `deleteFact`, the web UI's Edit and Delete
 * on a fact row). A fact is named by its relation id, which the graph page and recall return: ids are never
 * reused, so a stale one (the fact was edited, deleted or forgotten since the page loaded) is refused as
 * not found instead of hitting another fact. A fact may be stored once per session; editing or deleting it
 * takes every copy, or the copy left behind would still reach the next prompt. An edit is one transaction:
 * the corrected fact is checked before anything is written, and if writing it fails the old one stays.
 */
import type { MemoryRelation } from "@homeagent/sdk";
import { HomeAgentError } from "../../util/errors.js";
import { cachedStatement } from "../../util/statements.js";
import { describe, MemoryArgumentError } from "../api-args.js";
import { relationOut } from "./api-shapes.js";
import { RELATION_SELECT, toRelation } from "./core.js";
import { COMMIT_LIMITS, USER_SESSION } from "./fact-commit.js";
import type { GraphDB, Relation } from "./graph.js";
import { checkTriple, GraphError, sameFact } from "./rules.js";

const FIELDS = ["subject", "relation", "object"] as const;

type Row = Parameters<typeof toRelation>[0];

const BY_ID = `${RELATION_SELECT} WHERE r.id = ? AND r.status = 'active'`;
const BY_NAMES = `${RELATION_SELECT}
  WHERE s.name = ? AND r.relation_type = ? COLLATE NOCASE AND t.name = ? AND r.session_id = ? AND r.status = 'active'`;

export function editFactById(graph: GraphDB, id: unknown, change: unknown): { removed: number; fact: MemoryRelation } {
  const old = activeFact(graph, id);
  const next = corrected(old, change);
  const { subject, relation, object, confidence } = next;
  const r = graph.edit(old, { subject, relation, object, confidence }, { sessionId: USER_SESSION });
  const row = cachedStatement<[string, string, string, string], Row>(graph.db, BY_NAMES).get(
    next.subject,
    next.relation,
    next.object,
    USER_SESSION,
  );
  if (!row) {
    throw new HomeAgentError({
      code: "memory_inconsistent",
      message: `the corrected fact #${id} was written but cannot be read back: reload the facts to see it`,
    });
  }
  return { removed: r.removed, fact: relationOut(toRelation(row)) };
}

export function deleteFactById(graph: GraphDB, id: unknown): { removed: number } {
  return graph.deleteFact(activeFact(graph, id));
}

function activeFact(graph: GraphDB, id: unknown): Relation {
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1) {
    throw new MemoryArgumentError(`a fact id is a whole number ≥ 1, as the graph lists it; got ${describe(id)}`);
  }
  const row = cachedStatement<[number], Row>(graph.db, BY_ID).get(id);
  if (!row) {
    throw new GraphError({
      code: "graph_not_found",
      message: `there is no fact #${id} in memory: it was changed or removed since it was listed; reload the facts`,
    });
  }
  return toRelation(row);
}

/** The edited triple: the old one with the given fields replaced, checked by the graph's own rules. */
function corrected(old: Relation, change: unknown) {
  if (typeof change !== "object" || change === null || Array.isArray(change)) {
    throw new MemoryArgumentError("the correction must be an object {subject?, relation?, object?}");
  }
  const raw = change as Record<string, unknown>;
  const given = FIELDS.filter((f) => raw[f] !== undefined);
  if (given.length === 0) throw new MemoryArgumentError("give at least one of subject, relation, object");
  for (const f of given) {
    const v = raw[f];
    if (typeof v !== "string" || !v.trim() || v.length > COMMIT_LIMITS.fieldChars) {
      throw new MemoryArgumentError(
        `${f} must be a non-empty string of at most ${COMMIT_LIMITS.fieldChars} characters, got ${describe(v)}`,
      );
    }
  }
  const next = checkTriple({
    subject: raw.subject ?? old.subject,
    relation: raw.relation ?? old.relation,
    object: raw.object ?? old.object,
    confidence: COMMIT_LIMITS.defaultConfidence,
  });
  if (typeof next === "string") throw new MemoryArgumentError(`the corrected fact is not valid: ${next}`);
  if (sameFact(old, next)) {
    throw new MemoryArgumentError(
      "the corrected fact is the same as the stored one (names compare without case): change the subject, relation or object",
    );
  }
  return next;
}
