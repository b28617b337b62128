/**
 * Time-sliced job steps: work through items until a step has used its share of the lane (~40 ms of the
 * kernel's 50), then yield so a waiting turn runs before the next step.
 */
import { performance } from "node:perf_hooks";
import type { Job } from "./ports.js";

export const STEP_BUDGET_MS = 40;

/**
 * A job that calls `each` on the items `next()` hands out (null = done), several per step while the step
 * is under budget. `next` is called lazily, so it may read fresh state each time.
 */
export function slicedJob<T>(
  name: string,
  next: () => T | null,
  each: (item: T) => void,
  budgetMs = STEP_BUDGET_MS,
): Job {
  return {
    name,
    async step(signal) {
      const start = performance.now();
      for (;;) {
        if (signal.aborted) return false;
        const item = next();
        if (item === null) return false;
        each(item);
        if (performance.now() - start >= budgetMs) return true;
      }
    },
  };
}
