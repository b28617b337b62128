/**
 * The distill loop (30 min): run the rule pipeline, and if the context window has grown past twice its
 * size (self-tasks and interrupts do not prune it), prune it back to `max_context_size` as the original
 * does; what leaves the window is archived into documents by the window itself.
 */
import type { PipelineSummary } from "./pipeline.js";
import type { RunJob, WindowPort } from "./ports.js";

export interface DistillLoopDeps {
  pipeline: { tick(): Promise<PipelineSummary> };
  context: WindowPort;
  maxContextSize(): number;
  runJob: RunJob;
}

export async function runDistillLoop(d: DistillLoopDeps): Promise<string> {
  const p = await d.pipeline.tick();
  const max = d.maxContextSize();
  const size = d.context.size();
  let pruned = 0;
  if (size > 2 * max) {
    await d.runJob({
      name: "distill.prune",
      step: async () => {
        // Rank by the newest user input, so what the conversation is about now stays in the window.
        const events = await d.context.window();
        const query = events.findLast((e) => e.kind === "user" && e.input.trim() !== "")?.input ?? "";
        pruned = (await d.context.prune(query, max)).length;
        return false;
      },
    });
  }
  return (
    `distill: pipeline ${p.distilled} lines → ${p.triples} triples (${p.failed} failed, ${p.expired} expired, ` +
    `${p.pending} waiting); window ${size} events (limit ${max}), pruned ${pruned}`
  );
}
