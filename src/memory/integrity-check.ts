/**
 * `memory.check()`: is memory.db intact, and does its search index still match the items? Read-only and
 * off the turn's path: SQLite's integrity check and the orphaned-vector scan run in a worker thread with a
 * read-only connection of their own (integrity-worker.js), the keyword index is compared with the items' text
 * a slice at a time on the daemon's connection (retrieval/terms-check.ts). Everything shares one deadline; a
 * part still running then is reported "incomplete" (a worker busy inside SQLite cannot be interrupted, so it
 * is let go and ends on its own). One check at a time: a call while one runs gets that one's result.
 */
import { Worker } from "node:worker_threads";
import type { MemoryCheck, MemoryCheckPart } from "@homeagent/sdk";
import { checkTerms, type TermsCheck } from "../retrieval/terms-check.js";
import { vectorTables } from "../retrieval/vector-index.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { compileInWorkersOwnThread } from "../util/worker-isolates.js";
import type { DB } from "./store.js";

const WORKER_URL = new URL("./integrity-worker.js", import.meta.url);
export const CHECK_DEFAULT_MS = 20_000;
const CHECK_MIN_MS = 1_000;
const CHECK_MAX_MS = 120_000;
const MAX_PROBLEMS = 20;
/** A write of the daemon's holding the file when the worker opens it: waited for this long. */
const BUSY_MS = 5_000;

type WorkerPartName = "database" | "vector_index";
type WorkerMessage =
  | {
      ok: true;
      part: { name: WorkerPartName; problems: string[]; durationMs: number; stray?: number; spaces?: number };
    }
  | { ok: false; message: string };

export class MemoryChecker {
  /** The check under way, until it answers: callers meanwhile share its answer. */
  private running: Promise<MemoryCheck> | null = null;
  /**
   * Until the last check's worker has exited: a worker let go at the deadline still reads the file, so the
   * next check waits for it instead of starting a second one beside it (and never gets the old answer).
   */
  private workerGone: Promise<void> = Promise.resolve();

  constructor(private readonly db: DB) {}

  check(opts: { timeoutMs?: number } = {}): Promise<MemoryCheck> {
    const timeoutMs = checkedTimeout(opts.timeoutMs);
    if (this.running) return this.running;
    let exited: () => void = () => {};
    const previous = this.workerGone;
    this.workerGone = new Promise<void>((resolve) => {
      exited = resolve;
    });
    const run = previous.then(() => this.run(timeoutMs, exited));
    this.running = run;
    void run.then(
      () => this.settle(run),
      () => {
        // A check that failed before its worker ran must not hold every later one back.
        exited();
        this.settle(run);
      },
    );
    return run;
  }

  private settle(run: Promise<MemoryCheck>): void {
    if (this.running === run) this.running = null;
  }

  private async run(timeoutMs: number, onWorkerExit: () => void): Promise<MemoryCheck> {
    const started = performance.now();
    const deadline = started + timeoutMs;
    const [fromWorker, terms] = await Promise.all([
      workerParts(this.db.name, vectorTables(this.db), deadline, onWorkerExit),
      checkTerms(this.db, { deadline, maxProblems: MAX_PROBLEMS }),
    ]);
    const parts = [fromWorker.database, termsPart(terms, performance.now() - started), fromWorker.vector_index];
    return {
      ok: parts.every((p) => p.status === "ok"),
      parts,
      durationMs: Math.round(performance.now() - started),
      at: Date.now(),
    };
  }
}

function checkedTimeout(asked: number | undefined): number {
  if (asked === undefined) return CHECK_DEFAULT_MS;
  if (!Number.isFinite(asked) || asked < CHECK_MIN_MS || asked > CHECK_MAX_MS) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: `timeoutMs must be from ${CHECK_MIN_MS} to ${CHECK_MAX_MS} milliseconds`,
    });
  }
  return Math.round(asked);
}

function termsPart(t: TermsCheck, durationMs: number): MemoryCheckPart {
  const status = t.mismatched > 0 ? "fail" : t.complete ? "ok" : "incomplete";
  const detail =
    t.mismatched > 0
      ? `${t.mismatched} of ${t.checked} items checked have keyword terms that do not match their text${t.complete ? "" : ` (ran out of time after ${t.checked} of ${t.rows})`}`
      : t.complete
        ? `${t.rows} items: every item's keyword terms match its text`
        : `ran out of time after ${t.checked} of ${t.rows} items, none wrong so far`;
  return { name: "keyword_index", status, detail, problems: t.problems, durationMs: Math.round(durationMs) };
}

/** The worker's parts; one it has not reported by the deadline is "incomplete". */
function workerParts(
  path: string,
  tables: string[],
  deadline: number,
  onExit: () => void,
): Promise<Record<WorkerPartName, MemoryCheckPart>> {
  const started = performance.now();
  const parts: Partial<Record<WorkerPartName, MemoryCheckPart>> = {};
  const unfinished = (name: WorkerPartName, status: "fail" | "incomplete", detail: string): MemoryCheckPart =>
    parts[name] ?? { name, status, detail, problems: [], durationMs: Math.round(performance.now() - started) };
  return new Promise((resolve) => {
    compileInWorkersOwnThread();
    const worker = new Worker(WORKER_URL, {
      // The parent's flags would load tsx into the worker: slower, and not needed by plain JS.
      execArgv: [],
      workerData: { path, maxProblems: MAX_PROBLEMS, busyMs: BUSY_MS, vectorTables: tables },
    });
    let settled = false;
    const finish = (status: "fail" | "incomplete", detail: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        database: unfinished("database", status, detail),
        vector_index: unfinished("vector_index", status, detail),
      });
    };
    const timer = setTimeout(
      () => {
        // Inside SQLite the thread cannot be stopped: it is let go, and ends when its statement does.
        worker.unref();
        void worker.terminate();
        finish("incomplete", "ran out of time (raise timeoutMs, or check when the daemon is idle)");
      },
      Math.max(0, deadline - performance.now()),
    );
    worker.on("message", (m: WorkerMessage) => {
      if (!m.ok) return finish("fail", `the check could not read memory.db: ${m.message}`);
      parts[m.part.name] = workerPart(m.part);
      if (parts.database && parts.vector_index) finish("incomplete", "");
    });
    worker.once("error", (err) => finish("fail", `the check stopped: ${errorMessage(err)}`));
    worker.once("exit", (code) => {
      finish("fail", `the check stopped before it ended (exit ${code})`);
      onExit();
    });
  });
}

function workerPart(p: Extract<WorkerMessage, { ok: true }>["part"]): MemoryCheckPart {
  const durationMs = Math.round(p.durationMs);
  if (p.name === "database") {
    return p.problems.length === 0
      ? { name: p.name, status: "ok", detail: "SQLite's integrity check found nothing wrong", problems: [], durationMs }
      : {
          name: p.name,
          status: "fail",
          detail: `SQLite's integrity check found ${p.problems.length}${p.problems.length >= MAX_PROBLEMS ? "+" : ""} problem(s): restore memory.db from a backup, or stop homed and run sqlite3 memory.db ".recover"`,
          problems: p.problems,
          durationMs,
        };
  }
  return p.problems.length === 0
    ? {
        name: p.name,
        status: "ok",
        detail: `${p.spaces ?? 0} vector space(s): every vector has its item`,
        problems: [],
        durationMs,
      }
    : {
        name: p.name,
        status: "fail",
        detail: `${p.stray} vector(s) belong to no item (left behind by a write cut short or an edit by hand)`,
        problems: p.problems,
        durationMs,
      };
}
