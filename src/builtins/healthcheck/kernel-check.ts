/**
 * What the daemon's own status says about its health: settings whose stored value is invalid (their default
 * is in effect), an embedding tier that fell back, and a queue that keeps growing.
 */
import type { KernelStatus } from "@homeagent/sdk";
import { type Check, ok, warn } from "./check.js";

/** Inputs waiting that suggest the agent is stuck on a turn. */
const QUEUE_WARN = 10;

export function kernelChecks(s: KernelStatus): Check[] {
  const checks: Check[] = [
    ok("kernel", `HomeAgent ${s.version}, up ${s.uptimeS} s, ${s.tools} tools, ${s.processed} inputs answered`),
  ];
  for (const p of s.configProblems) {
    checks.push(
      warn(
        `config:${p.key}`,
        `its stored value is invalid, so the default is in effect: ${p.message}`,
        `/settings set ${p.key} <a valid value>`,
      ),
    );
  }
  for (const d of s.embedding.degraded) {
    checks.push(
      warn(
        `embedding:${d.tier}`,
        `not in use (${d.reason}); searching with ${s.embedding.active}`,
        "see core.embedding.* settings",
      ),
    );
  }
  if (s.queued >= QUEUE_WARN) {
    checks.push(
      warn(
        "queue",
        `${s.queued} inputs are waiting${s.busy ? " behind a running turn" : ""}`,
        "stop the running turn (/stop) if it is stuck",
      ),
    );
  }
  return checks;
}
