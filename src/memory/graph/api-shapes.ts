/**
 * The graph layer's rows in the SDK's camelCase shapes, shared by every plugin-facing memory call that
 * returns entities or relations (recall, graph pages), so both describe a fact the same way.
 */
import type { MemoryEntity, MemoryRelation } from "@homeagent/sdk";
import type { Entity, Relation } from "./graph.js";

export function entityOut(e: Entity): MemoryEntity {
  return { name: e.name, type: e.type, mentions: e.mentionCount, createdAt: e.createdAt, updatedAt: e.updatedAt };
}

export function relationOut(r: Relation): MemoryRelation {
  return {
    id: r.id,
    subject: r.subject,
    relation: r.relation,
    object: r.object,
    confidence: r.confidence,
    status: r.status,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    ...(r.sentence ? { sentence: r.sentence } : {}),
  };
}
