/**
 * The one shape every health check answers with, and the report that gathers them: a person (or the model)
 * reads the failures first, each saying what is wrong and what to do, and the size stays bounded however
 * many plugins and tools there are.
 */

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  /** What was checked: "plugin:cmd", "tool:cmd_run", "llm:main", "memory:database", "disk", "clock", … */
  name: string;
  status: CheckStatus;
  detail: string;
  /** What to do about it, when not ok. */
  fix?: string;
}

export interface HealthReport {
  /** The worst status of all checks. */
  status: CheckStatus;
  counts: Record<CheckStatus, number>;
  /** Failures first, then warnings, then the rest; at most MAX_LISTED. */
  checks: Check[];
  /** Checks left out of `checks` to keep the report bounded (always ok ones first). */
  omitted: number;
  durationMs: number;
  /** When it finished, Unix ms. */
  at: number;
}

/** Checks listed in one report, and characters of one detail or fix. */
const MAX_LISTED = 200;
const MAX_TEXT = 600;

const RANK: Record<CheckStatus, number> = { fail: 0, warn: 1, ok: 2 };

export function ok(name: string, detail: string): Check {
  return { name, status: "ok", detail };
}

export function warn(name: string, detail: string, fix?: string): Check {
  return fix ? { name, status: "warn", detail, fix } : { name, status: "warn", detail };
}

export function fail(name: string, detail: string, fix?: string): Check {
  return fix ? { name, status: "fail", detail, fix } : { name, status: "fail", detail };
}

export function report(checks: readonly Check[], startedAt: number): HealthReport {
  const counts: Record<CheckStatus, number> = { ok: 0, warn: 0, fail: 0 };
  for (const c of checks) counts[c.status]++;
  const sorted = [...checks].sort((a, b) => RANK[a.status] - RANK[b.status]);
  const status: CheckStatus = counts.fail > 0 ? "fail" : counts.warn > 0 ? "warn" : "ok";
  return {
    status,
    counts,
    checks: sorted.slice(0, MAX_LISTED).map(bounded),
    omitted: Math.max(0, sorted.length - MAX_LISTED),
    durationMs: Math.round(performance.now() - startedAt),
    at: Date.now(),
  };
}

function bounded(c: Check): Check {
  const out: Check = { ...c, detail: cut(c.detail) };
  if (c.fix) out.fix = cut(c.fix);
  return out;
}

function cut(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`;
}
