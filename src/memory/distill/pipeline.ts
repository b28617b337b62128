/**
 * The rule pipeline (architecture document ⑤): every answered user line that could state a fact about the
 * speaker becomes a raw candidate in memory.db, and a tick (every 10 minutes) runs the rules over them in
 * batches of 50 and commits the triples to the graph. Candidates are durable, so a restart between the
 * turn and the tick loses nothing; a candidate whose commit failed stays for the next tick, for at most
 * 7 days. The table is capped (5000, the original's startup cap) so a broken graph cannot grow it forever.
 *
 * The rules' first run in a process compiles their patterns; the constructor pays that at start (warmUp).
 * The Chinese tokenizer's dictionary is not loaded here (≈ 37 MB a user who writes no CJK never needs): the
 * first CJK text loads it, or the daemon's warm-up after start when CJK is expected (daemon/warm-up.ts).
 *
 * A line's graph commit and the deletion of its candidate are two transactions (GraphDB.commit opens its
 * own), so a kill exactly between them distills that line again after the restart (one more mention).
 */
import { errorMessage } from "../../util/errors.js";
import type { DB } from "../store.js";
import type { DistillLog, GraphCommit, RunJob } from "./ports.js";
import { extractTriples, MAX_LINE_CHARS } from "./rules.js";
import { migrateDistill } from "./schema.js";
import { slicedJob } from "./slice.js";

/** The graph session of rule-extracted facts: one edge per fact however often it is said. */
export const DISTILL_SESSION = "distill";

const DAY = 24 * 60 * 60 * 1000;
/** How long the candidate of a replaced version waits to be chosen back before it goes. */
const PARKED_RETENTION_MS = DAY;

export interface CandidateTurn {
  ts: number;
  source: string;
  /** What the user said. */
  input: string;
  /** NoMemory channel or tool: never distilled. */
  noMemory?: boolean;
}

export interface PipelineOptions {
  /** A candidate not distilled within this time is dropped (default 7 days). */
  retentionMs?: number;
  /** Candidates per batch (default 50). */
  batchSize?: number;
  /** Most candidates kept; the oldest go first (default 5000). */
  maxPending?: number;
}

export interface PipelineDeps {
  db: DB;
  graph: GraphCommit;
  runJob: RunJob;
  now?: () => number;
  log?: DistillLog;
}

export interface PipelineSummary {
  /** Candidates read and removed. */
  distilled: number;
  /** Triples committed (before the graph's own checks). */
  triples: number;
  /** Of those, skipped because the user had removed that fact from memory. */
  rejected: number;
  /** Candidates whose commit failed; they stay for the next tick. */
  failed: number;
  /** Candidates dropped for age. */
  expired: number;
  /** Candidates still waiting. */
  pending: number;
}

interface Row {
  id: number;
  ts: number;
  session: string;
  content: string;
}

// Only lines that talk about "I"/"my"/"我" can match a rule: the others are never stored.
const MAY_STATE_A_FACT = /我|\bi\b|\bi'|\bim\b|\bmy\b|\bcall me\b/i;

export class DistillPipeline {
  private readonly db: DB;
  private readonly retentionMs: number;
  private readonly batchSize: number;
  private readonly maxPending: number;
  private readonly now: () => number;
  private running: Promise<PipelineSummary> | null = null;

  constructor(
    private readonly deps: PipelineDeps,
    opts: PipelineOptions = {},
  ) {
    this.db = deps.db;
    this.retentionMs = opts.retentionMs ?? 7 * DAY;
    this.batchSize = opts.batchSize ?? 50;
    this.maxPending = opts.maxPending ?? 5000;
    this.now = deps.now ?? Date.now;
    migrateDistill(this.db);
    warmUp();
    const expired = this.expire();
    const trimmed = this.trim();
    if (expired + trimmed > 0) {
      deps.log?.info(`distill pipeline: dropped ${expired} expired and ${trimmed} over-cap candidates at start`);
    }
  }

  /** Stores a user line as a candidate (durably, before returning); false when it cannot hold a fact. */
  offer(turn: CandidateTurn): boolean {
    if (turn.noMemory || !MAY_STATE_A_FACT.test(turn.input)) return false;
    this.db
      .prepare("INSERT INTO distill_candidates (ts, session, role, content) VALUES (?, ?, 'user', ?)")
      .run(turn.ts, turn.source.slice(0, 200), turn.input.slice(0, MAX_LINE_CHARS));
    const trimmed = this.trim();
    if (trimmed > 0)
      this.deps.log?.warn(`distill pipeline: over ${this.maxPending} candidates, ${trimmed} oldest dropped`);
    return true;
  }

  pending(): number {
    return this.db.prepare("SELECT COUNT(*) FROM distill_candidates WHERE parked = 0").pluck().get() as number;
  }

  /** Distills every waiting candidate, batch by batch on the job lane. Concurrent calls share one run. */
  tick(): Promise<PipelineSummary> {
    if (this.running) return this.running;
    const run = this.distillAll().finally(() => {
      this.running = null;
    });
    this.running = run;
    return run;
  }

  /** How many candidates `match` accepts (a forget preview). */
  matches(match: (content: string) => boolean): number {
    return this.matching(match).length;
  }

  /**
   * One version of a turn left the context window and another came in (asked again, edited, or chosen
   * back): the candidate of the one that left waits aside, not distilled, and the one that came in (a version
   * chosen back) is distilled after all if it was still waiting. One already distilled is not again. Runs
   * inside the window's transaction. Returns how many candidates moved.
   */
  swapped(left: { ts: number; input: string; noMemory: boolean }, came: { ts: number; input: string }): number {
    const park = this.db.prepare("UPDATE distill_candidates SET parked = ? WHERE ts = ? AND content = ?");
    const parked = left.noMemory ? 0 : park.run(1, left.ts, left.input.slice(0, MAX_LINE_CHARS)).changes;
    return parked + park.run(0, came.ts, came.input.slice(0, MAX_LINE_CHARS)).changes;
  }

  /** Deletes the candidates whose text `match` accepts (forgetting); returns how many. */
  purge(match: (content: string) => boolean): number {
    const ids = this.matching(match);
    if (ids.length > 0) {
      this.db
        .prepare("DELETE FROM distill_candidates WHERE id IN (SELECT value FROM json_each(?))")
        .run(JSON.stringify(ids));
    }
    return ids.length;
  }

  private matching(match: (content: string) => boolean): number[] {
    const rows = this.db.prepare("SELECT id, content FROM distill_candidates").all() as Array<{
      id: number;
      content: string;
    }>;
    return rows.filter((r) => match(r.content)).map((r) => r.id);
  }

  private async distillAll(): Promise<PipelineSummary> {
    const summary: PipelineSummary = { distilled: 0, triples: 0, rejected: 0, failed: 0, expired: 0, pending: 0 };
    let lastId = 0;
    let batch: Row[] = [];
    let started = false;
    const next = (): Row | null => {
      if (!started) {
        started = true;
        summary.expired = this.expire();
      }
      if (batch.length === 0) {
        batch = this.db
          .prepare(
            "SELECT id, ts, session, content FROM distill_candidates WHERE id > ? AND parked = 0 ORDER BY id LIMIT ?",
          )
          .all(lastId, this.batchSize) as Row[];
      }
      const row = batch.shift();
      if (!row) return null;
      lastId = row.id;
      return row;
    };
    // Turns ran since the last step and a forget may have deleted candidates this batch still holds.
    const begin = () => {
      batch = [];
    };
    await this.deps.runJob(
      slicedJob("distill.pipeline", next, (row) => this.distillOne(row, summary), { begin, db: this.db }),
    );
    summary.pending = this.pending();
    return summary;
  }

  private distillOne(row: Row, summary: PipelineSummary): void {
    try {
      const triples = extractTriples(row.content);
      const r =
        triples.length > 0
          ? this.deps.graph.commit(triples, { sessionId: DISTILL_SESSION, sentence: row.content, ts: row.ts })
          : null;
      this.db.prepare("DELETE FROM distill_candidates WHERE id = ?").run(row.id);
      summary.distilled++;
      summary.triples += triples.length;
      summary.rejected += r?.rejected ?? 0;
    } catch (err) {
      summary.failed++;
      this.db.prepare("UPDATE distill_candidates SET attempts = attempts + 1 WHERE id = ?").run(row.id);
      if (summary.failed === 1) {
        this.deps.log?.warn(`distill pipeline: a commit failed, retried next tick: ${errorMessage(err)}`);
      }
    }
  }

  private expire(): number {
    const now = this.now();
    // A replaced version's candidate waits a day at most: the text was taken back, and is chosen again soon or not at all.
    return (
      this.db.prepare("DELETE FROM distill_candidates WHERE ts < ?").run(now - this.retentionMs).changes +
      this.db.prepare("DELETE FROM distill_candidates WHERE parked = 1 AND ts < ?").run(now - PARKED_RETENTION_MS)
        .changes
    );
  }

  private trim(): number {
    const cut = this.db
      .prepare("SELECT id FROM distill_candidates ORDER BY id DESC LIMIT 1 OFFSET ?")
      .pluck()
      .get(this.maxPending) as number | undefined;
    return cut === undefined ? 0 : this.db.prepare("DELETE FROM distill_candidates WHERE id <= ?").run(cut).changes;
  }
}

/** Compiles what the first distillation would otherwise compile inside a job step: the rules' patterns. */
function warmUp(): void {
  extractTriples("我叫小明，我住在北京. My name is Ann, I live in Paris");
}
