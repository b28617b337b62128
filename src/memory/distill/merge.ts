/**
 * The merge loop (120 min): find entities that may name the same thing and ask the model, in at most five
 * consolidation self-tasks per tick that may only call memory_merge / memory_edit. Candidate pairs come from
 * each entity's nearest neighbours in the search index (not all pairs: 10k entities would be 50M pairs),
 * scanned a few hundred entities per tick from a cursor that wraps around. A proposed pair gets a
 * "no-merge" marker that decays by one round per tick, so the model is not asked the same question again
 * before it has faded (if it merged them, the pair no longer exists anyway).
 */
import { errorMessage } from "../../util/errors.js";
import { containsAll } from "../statements.js";
import type { DB } from "../store.js";
import { MERGE_TOOLS, mergeTask } from "./consolidation.js";
import type { DistillLog, EntityLite, MergeGraph, NearestIndex, RunJob, SelfTask } from "./ports.js";
import { migrateDistill } from "./schema.js";
import { entitySimilarity, MERGE_THRESHOLD } from "./similarity.js";
import { slicedJob } from "./slice.js";

export const MAX_MERGE_TASKS = 5;
/** Entities looked at per tick. */
export const MERGE_SCAN_PER_TICK = 500;
/** Neighbours asked for per entity. */
export const MERGE_NEIGHBOURS = 5;
/** Ticks a proposed pair is not proposed again (12 × 120 min = one day at the default interval). */
export const NO_MERGE_ROUNDS = 12;
const PAGE = 100;
const ENTITY_ITEM = /^ent:(\d+)$/;

/** Durable "already asked about this pair" markers that fade one round per merge tick. */
export class NoMergeMarkers {
  constructor(private readonly db: DB) {
    migrateDistill(db);
  }

  has(a: string, b: string): boolean {
    return this.db.prepare("SELECT 1 FROM distill_no_merge WHERE a = ? AND b = ?").get(...key(a, b)) !== undefined;
  }

  set(a: string, b: string, rounds = NO_MERGE_ROUNDS): void {
    this.db
      .prepare(
        "INSERT INTO distill_no_merge (a, b, rounds) VALUES (?, ?, ?) ON CONFLICT (a, b) DO UPDATE SET rounds = excluded.rounds",
      )
      .run(...key(a, b), rounds);
  }

  /** One round passes: every marker loses one, and those at zero are gone. Returns how many faded. */
  decay(): number {
    return this.db.transaction(() => {
      this.db.prepare("UPDATE distill_no_merge SET rounds = rounds - 1").run();
      return this.db.prepare("DELETE FROM distill_no_merge WHERE rounds <= 0").run().changes;
    })();
  }

  count(): number {
    return this.db.prepare("SELECT COUNT(*) FROM distill_no_merge").pluck().get() as number;
  }

  /** Markers naming every (lower-case) term in either name: forgetting counts them, then drops them. */
  mentioning(terms: readonly string[], opts: { remove: boolean }): number {
    const where = containsAll(this.db, "a || ' ' || b", terms);
    const sql = opts.remove ? "DELETE FROM distill_no_merge" : "SELECT COUNT(*) FROM distill_no_merge";
    const st = this.db.prepare(`${sql} WHERE ${where.sql}`);
    return opts.remove ? st.run(...where.params).changes : (st.pluck().get(...where.params) as number);
  }
}

function key(a: string, b: string): [string, string] {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? [x, y] : [y, x];
}

export interface MergeDeps {
  graph: MergeGraph;
  index: NearestIndex;
  markers: NoMergeMarkers;
  runJob: RunJob;
  selfTask: SelfTask;
  log?: DistillLog;
}

/** Where the scan resumes next tick (an offset into the entities by mention count). */
export interface MergeCursor {
  offset: number;
}

interface Pair {
  a: EntityLite;
  b: EntityLite;
  similarity: number;
}

export async function runMergeLoop(d: MergeDeps, cursor: MergeCursor): Promise<string> {
  const pairs: Pair[] = [];
  let scanned = 0;
  let wrapped = cursor.offset === 0;
  let page: EntityLite[] = [];
  let decayed = false;
  const next = (): EntityLite | null => {
    if (!decayed) {
      decayed = true;
      d.markers.decay(); // one round passes per tick, inside the job like every other write
    }
    if (pairs.length >= MAX_MERGE_TASKS || scanned >= MERGE_SCAN_PER_TICK) return null;
    if (page.length === 0) {
      page = d.graph.entities({ offset: cursor.offset, limit: PAGE });
      if (page.length === 0) {
        cursor.offset = 0;
        if (wrapped) return null;
        wrapped = true;
        page = d.graph.entities({ offset: 0, limit: PAGE });
        if (page.length === 0) return null;
      }
    }
    cursor.offset++;
    scanned++;
    return page.shift()!;
  };
  const each = (e: EntityLite) => {
    for (const pair of neighbourPairs(d, e)) {
      if (pairs.length >= MAX_MERGE_TASKS) return;
      if (d.markers.has(pair.a.name, pair.b.name)) continue;
      d.markers.set(pair.a.name, pair.b.name);
      pairs.push(pair);
    }
  };
  await d.runJob(slicedJob("distill.merge", next, each));
  const results = await Promise.allSettled(
    pairs.map((p) => d.selfTask(mergeTask(p.a, p.b, p.similarity), { tools: [...MERGE_TOOLS] })),
  );
  const failed = results.filter((r) => r.status === "rejected");
  if (failed.length > 0) {
    d.log?.warn(
      `merge: ${failed.length} consolidation tasks failed: ${errorMessage((failed[0] as PromiseRejectedResult).reason)}`,
    );
  }
  return `merge: scanned ${scanned} entities, ${pairs.length} consolidation tasks (${failed.length} failed)`;
}

function neighbourPairs(d: MergeDeps, e: EntityLite): Pair[] {
  let near: Array<{ id: string; similarity: number }>;
  try {
    near = d.index.nearest(`ent:${e.id}`, MERGE_NEIGHBOURS + 1, { kind: "entity" });
  } catch {
    return []; // not indexed (yet): no neighbours this tick
  }
  const out: Pair[] = [];
  for (const n of near) {
    const id = Number(ENTITY_ITEM.exec(n.id)?.[1]);
    if (!id || id === e.id) continue;
    const other = d.graph.entityById(id);
    if (!other) continue;
    const similarity = entitySimilarity(e.name, other.name, n.similarity);
    if (similarity > MERGE_THRESHOLD) out.push({ a: e, b: other, similarity });
  }
  return out;
}
