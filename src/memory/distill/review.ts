/**
 * The review loop (120 min): up to five facts that still cite the sentence they were extracted from go to
 * the model in one review self-task (tools: memory_edit, memory_purge), which fixes or removes misreadings.
 * Once the task is done the citations are cleared and sentences nothing cites any more are deleted, so each
 * fact is reviewed once and raw sentences do not pile up. A failed task clears nothing: next tick retries.
 */
import { REVIEW_TOOLS, reviewTask } from "./consolidation.js";
import type { ReviewGraph, ReviewRelation, RunJob, SelfTask } from "./ports.js";

export const MAX_REVIEW_RELATIONS = 5;

export interface ReviewDeps {
  graph: ReviewGraph;
  runJob: RunJob;
  selfTask: SelfTask;
}

export async function runReviewLoop(d: ReviewDeps): Promise<string> {
  let selected: ReviewRelation[] = [];
  await d.runJob({
    name: "distill.review.select",
    step: async () => {
      selected = d.graph.withSentences(MAX_REVIEW_RELATIONS);
      return false;
    },
  });
  if (selected.length === 0) return "review: no facts with source sentences to review";
  const items = selected.filter((r) => (r.sentence ?? "").trim() !== "");
  if (items.length > 0) await d.selfTask(reviewTask(items), { tools: [...REVIEW_TOOLS] });
  let orphans = 0;
  await d.runJob({
    name: "distill.review.clear",
    step: async () => {
      orphans = d.graph.clearSentences(selected.map((r) => r.id));
      return false;
    },
  });
  return `review: ${items.length} facts reviewed, ${orphans} orphan sentences deleted`;
}
