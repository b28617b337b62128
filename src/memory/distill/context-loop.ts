/**
 * The distill loop (30 min): run the rule pipeline, and if the context window has grown past twice its
 * size (self-tasks and interrupts do not prune it), prune it back to `max_context_size` as the original
 * does; what leaves the window is archived into documents by the window itself.
 *
 * One prune of a large window takes hundreds of milliseconds (every event that leaves is archived and
 * indexed), so it is done in batches, one per job step: each step prunes a few events, and the batch
 * grows or shrinks so a step stays near its time share. Every batch is a full prune with the same query,
 * so the window ends where one big prune would have left it (the ranking is the same), in several documents.
 */
import { performance } from "node:perf_hooks";
import type { DB } from "../store.js";
import type { PipelineSummary } from "./pipeline.js";
import type { PruneQuery, RunJob, WindowPort } from "./ports.js";
import { walPacer } from "./slice.js";

/** What one prune step aims at (ms): below the lane's 50 ms, leaving room for a misjudged batch. */
export const PRUNE_STEP_TARGET_MS = 25;

export interface DistillLoopDeps {
  pipeline: { tick(): Promise<PipelineSummary> };
  context: WindowPort;
  maxContextSize(): number;
  runJob: RunJob;
  /** Tokenizes and embeds the prune query once for every batch (SearchIndex.prepare); else each batch does. */
  prepare?(text: string): Promise<PruneQuery>;
  /** memory.db, checkpointed between batches (slice.ts walPacer says why). */
  db?: DB;
}

export async function runDistillLoop(d: DistillLoopDeps): Promise<string> {
  const p = await d.pipeline.tick();
  const max = d.maxContextSize();
  const size = d.context.size();
  let pruned = 0;
  if (size > 2 * max) {
    // Rank by the newest user input, so what the conversation is about now stays in the window. Read and
    // embedded before the job, so the embedding's wait does not hold the lane.
    const events = await d.context.window();
    const text = events.findLast((e) => e.kind === "user" && e.input.trim() !== "")?.input ?? "";
    const query = d.prepare ? await d.prepare(text) : text;
    const batch = new PruneBatch();
    const checkpoint = walPacer(d.db);
    await d.runJob({
      name: "distill.prune",
      step: async (signal) => {
        const start = performance.now();
        checkpoint();
        const before = d.context.size();
        if (before <= max || signal.aborted) return false;
        pruned += (await d.context.prune(query, before - Math.min(batch.size, before - max))).length;
        batch.adjust(performance.now() - start);
        const after = d.context.size();
        // A window that did not shrink would make this job spin forever.
        return after > max && after < before;
      },
    });
  }
  return (
    `distill: pipeline ${p.distilled} lines → ${p.triples} triples (${p.failed} failed, ${p.expired} expired, ` +
    `${p.pending} waiting, ${p.rejected} skipped as removed by the user); window ${size} events (limit ${max}), ` +
    `pruned ${pruned}`
  );
}

/**
 * Events per prune step. A step costs a fixed part (reading and scoring the window) plus a part per event
 * that leaves, both unknown in advance; scaling the batch by target / measured converges to the size that
 * takes the target (or to 1 when the fixed part alone is over it). It starts at 1 and grows by half at
 * most, so a window of large events never gets one oversized step.
 */
export class PruneBatch {
  size = 1;

  constructor(private readonly targetMs = PRUNE_STEP_TARGET_MS) {}

  adjust(tookMs: number): void {
    const scaled = (this.size * this.targetMs) / Math.max(tookMs, 1);
    // Rounded towards the target, so a batch under it always grows and one over it always shrinks.
    const next = tookMs < this.targetMs ? Math.ceil(scaled) : Math.floor(scaled);
    this.size = Math.max(1, Math.min(Math.ceil(this.size * 1.5), next));
  }
}
