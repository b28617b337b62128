/** memory.db's integrity and its search index against the items (sdk.memory.check), as health checks. */
import type { MemoryCheck } from "@homeagent/sdk";
import { type Check, fail, ok, warn } from "./check.js";

const FIX: Record<string, string> = {
  database: "stop homed, copy memory.db aside, and restore it from a backup (or recover it with sqlite3's .recover)",
  keyword_index: "the listed items are not found by their words: forget and commit them again, or restore memory.db",
  vector_index: "harmless for answers but wasted space; restore memory.db from a backup to clean it",
};

export function memoryChecks(check: MemoryCheck): Check[] {
  return check.parts.map((p) => {
    const name = `memory:${p.name}`;
    const detail = `${p.detail} (${p.durationMs} ms)${p.problems.length ? `: ${p.problems.join("; ")}` : ""}`;
    if (p.status === "ok") return ok(name, detail);
    if (p.status === "incomplete") return warn(name, detail, "raise plugin.healthcheck.memory_timeout");
    return fail(name, detail, FIX[p.name]);
  });
}
