/**
 * How long tools and health checks take: the last `perf_history` tool calls (from the bus's tool_call end
 * events) and check runs, summarized per tool and per check group, so a tool that became slow or starts
 * failing shows without reading logs.
 */
import type { AgentEvent } from "@homeagent/sdk";
import { Ring } from "./ring.js";

export interface PerfRecord {
  /** "tool:<name>" or "check:<group>". */
  name: string;
  durationMs: number;
  ok: boolean;
  at: number;
}

export interface PerfSummary {
  name: string;
  calls: number;
  failures: number;
  p50Ms: number;
  maxMs: number;
  lastAt: number;
}

export class PerfLog {
  private readonly records: Ring<PerfRecord>;

  constructor(capacity: () => number) {
    this.records = new Ring(capacity);
  }

  record(r: PerfRecord): void {
    this.records.push(r);
  }

  /** A tool_call event's end, as a record; other events are ignored. */
  onToolCall(event: AgentEvent): void {
    const p = event.payload;
    if (p.phase !== "end" || typeof p.name !== "string" || typeof p.durationMs !== "number") return;
    this.record({ name: `tool:${p.name}`, durationMs: p.durationMs, ok: p.status === "ok", at: event.timestamp });
  }

  /** Per name, the slowest (by p50) first. */
  summary(): { records: number; entries: PerfSummary[] } {
    const byName = new Map<string, PerfRecord[]>();
    const all = this.records.list();
    for (const r of all) {
      const list = byName.get(r.name);
      if (list) list.push(r);
      else byName.set(r.name, [r]);
    }
    const entries = [...byName].map(([name, rs]) => summarize(name, rs));
    return { records: all.length, entries: entries.sort((a, b) => b.p50Ms - a.p50Ms) };
  }
}

function summarize(name: string, rs: readonly PerfRecord[]): PerfSummary {
  const ms = rs.map((r) => r.durationMs).sort((a, b) => a - b);
  return {
    name,
    calls: rs.length,
    failures: rs.filter((r) => !r.ok).length,
    p50Ms: Math.round(ms[Math.floor((ms.length - 1) / 2)]),
    maxMs: Math.round(ms[ms.length - 1]),
    // Records are kept oldest first.
    lastAt: rs[rs.length - 1].at,
  };
}
