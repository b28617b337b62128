/**
 * What the model found when it tried the tools (healthcheck_report): the last `perf_history` reports, and
 * the latest per tool as a check of its own, so a tool the model saw fail shows in the next health report.
 */
import { type Check, fail, ok } from "./check.js";
import { Ring } from "./ring.js";

export const REPORT_STATUSES = ["ok", "fail", "skip"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export interface ToolReport {
  toolName: string;
  status: ReportStatus;
  detail: string;
  at: number;
}

export class ToolReports {
  private readonly reports: Ring<ToolReport>;

  constructor(capacity: () => number) {
    this.reports = new Ring(capacity);
  }

  add(report: ToolReport): void {
    this.reports.push(report);
  }

  /** The latest report of each tool, as checks ("skip" shows as ok: nothing was found wrong). */
  checks(): Check[] {
    const latest = new Map<string, ToolReport>();
    for (const r of this.reports.list()) latest.set(r.toolName, r);
    return [...latest.values()].map((r) => {
      const name = `report:${r.toolName}`;
      const detail = `reported ${r.status} at ${new Date(r.at).toISOString()}: ${r.detail}`;
      return r.status === "fail"
        ? fail(name, detail, "try the tool again; see the daemon log for its errors")
        : ok(name, detail);
    });
  }

  count(): number {
    return this.reports.list().length;
  }
}
