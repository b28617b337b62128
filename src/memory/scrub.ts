/**
 * The scrub after a forget. Deleting rows (with secure_delete on) zeroes what SQLite frees, but not the stale
 * copies of cells a b-tree page keeps in its unused space after rebalancing, nor the old pages in the
 * write-ahead log: a forgotten sentence could still be read off the disk. So a confirmed forget queues a
 * scrub of the databases it touched: VACUUM (in a worker thread with its own connection, scrub-worker.js),
 * then the log truncated to zero bytes.
 *
 * It runs as one job on the kernel's job lane, so no turn writes while a database is rewritten (a turn that
 * arrives waits for it, like for any job step); the daemon's event loop stays free (reads, HTTP, streams).
 * Before each database the free disk space is checked (the log grows to about the database's size). A failed
 * scrub is reported — status, log, the next forget's answer — and never undoes the forget.
 *
 * Crash-safe: the databases to scrub are written to a marker file first and removed from it when done. VACUUM
 * is one transaction: a kill -9 at any point leaves the old database or the new one, and the next start
 * scrubs again what the marker still lists.
 */
import { existsSync, statfsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname } from "node:path";
import { Worker } from "node:worker_threads";
import type { Logger, ScrubStatus } from "@homeagent/sdk";
import type { Job } from "../kernel/jobs.js";
import { formatBytes } from "../util/bytes.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { compileInWorkersOwnThread } from "../util/worker-isolates.js";
import { PendingList } from "./pending-list.js";

const WORKER_URL = new URL("./scrub-worker.js", import.meta.url);
/** Up to this size the copy VACUUM builds is kept in memory; a larger one goes to a temporary file. */
const IN_MEMORY_BYTES = 256 * 1024 * 1024;
/** Room kept free on the disk besides what the scrub needs. */
const DISK_MARGIN_BYTES = 16 * 1024 * 1024;
/** A write of the daemon's that is in progress when VACUUM starts: waited for this long. */
const BUSY_MS = 30_000;

export class ScrubError extends HomeAgentError {}

export interface ScrubOptions {
  /** The file listing databases still to scrub (survives a crash). */
  marker: string;
  runJob: (job: Job) => Promise<void>;
  log: Logger;
  /** Free bytes on the file system holding `dir` (tests pass their own). */
  freeBytes?: (dir: string) => number;
  now?: () => number;
}

/** Bytes a scrub of `path` needs free beside it: about the database, for the log VACUUM writes. */
export function scrubNeeds(path: string): number {
  return fileSize(path) + fileSize(`${path}-wal`) + DISK_MARGIN_BYTES;
}

export class Scrubber {
  private current: ScrubStatus = { state: "idle", done: 0, total: 0 };
  /** Databases waiting, in order; a path requested again while it waits is not added twice. */
  private readonly waiting: string[] = [];
  private queued = false;
  /** The database being rewritten now, and whether it was asked for again meanwhile (scrub it once more). */
  private running: { path: string; again: boolean; done: Promise<void> } | null = null;
  private readonly freeBytes: (dir: string) => number;
  private readonly now: () => number;
  /** The databases still to scrub, for a start after a crash. */
  private readonly marker: PendingList<string>;

  constructor(private readonly opts: ScrubOptions) {
    this.freeBytes = opts.freeBytes ?? diskFree;
    this.now = opts.now ?? Date.now;
    this.marker = new PendingList(opts.marker, (v): v is string => typeof v === "string", opts.log);
  }

  status(): ScrubStatus {
    return { ...this.current };
  }

  /**
   * Resolves when no database is being rewritten. A write to it meanwhile would wait for the VACUUM's lock
   * with the event loop stopped (better-sqlite3 waits synchronously), so writes outside the job lane (the
   * memory API's) await this first.
   */
  async idle(): Promise<void> {
    while (this.running) await this.running.done;
  }

  /**
   * Queues these databases for a scrub and returns the status as it is now: "queued", or "failed" at once
   * when the disk has no room for it (the forget stands; a later forget tries again).
   */
  request(paths: readonly string[]): ScrubStatus {
    // The database being rewritten now may already have read past what this forget removes: once more.
    if (this.running && paths.includes(this.running.path)) this.running.again = true;
    const fresh = paths.filter((p) => !this.waiting.includes(p) && existsSync(p));
    const problem = fresh.map((p) => this.noRoom(p)).find((e) => e !== undefined);
    if (problem) {
      this.fail(problem);
      return this.status();
    }
    this.waiting.push(...fresh);
    this.saveMarker();
    if (this.waiting.length === 0) return this.status();
    if (this.queued) this.current.total = this.current.done + this.waiting.length;
    else this.current = { state: "queued", done: 0, total: this.waiting.length, startedAt: this.now() };
    this.queue();
    return this.status();
  }

  /** A start after a crash: scrub what the marker still lists. */
  resume(): void {
    const listed = this.marker.read();
    if (listed.length > 0) {
      this.opts.log.info(`memory: resuming the scrub of ${listed.map((p) => basename(p)).join(", ")}`);
      this.request(listed);
    }
  }

  private queue(): void {
    if (this.queued) return;
    this.queued = true;
    const job: Job = {
      name: "forget-scrub",
      stepBudgetMs: 60_000,
      step: async (signal) => {
        const path = this.waiting[0];
        if (path === undefined) return false;
        await this.scrubOne(path, signal);
        return this.waiting.length > 0;
      },
    };
    this.opts
      .runJob(job)
      .catch((err) => this.fail(err))
      .finally(() => {
        this.queued = false;
        if (this.current.state !== "failed") this.finish();
      });
  }

  private async scrubOne(path: string, signal: AbortSignal): Promise<void> {
    this.current = { ...this.current, state: "running", current: basename(path) };
    if (!existsSync(path)) {
      this.done(path);
      return;
    }
    const problem = this.noRoom(path);
    if (problem) throw problem;
    const tempStore = fileSize(path) <= IN_MEMORY_BYTES ? "memory" : "file";
    if (await this.vacuum(path, tempStore, signal)) this.requeue(path);
    else this.done(path);
  }

  /** Why `path` cannot be scrubbed for want of disk space (beside it, or for a large copy in the temp dir). */
  private noRoom(path: string): ScrubError | undefined {
    const needs = scrubNeeds(path);
    if (this.freeBytes(dirname(path)) < needs) {
      return new ScrubError({
        code: "scrub_disk_full",
        message: `not enough free disk space to scrub ${basename(path)}: it needs about ${formatBytes(needs)}; free some space, then forget again (the text is already removed from memory, but may linger in free space of the file)`,
      });
    }
    const size = fileSize(path);
    if (size > IN_MEMORY_BYTES && this.freeBytes(tmpdir()) < size) {
      return new ScrubError({
        code: "scrub_disk_full",
        message: `not enough free space in ${tmpdir()} for the copy VACUUM makes of ${basename(path)} (${formatBytes(size)}); free some, then forget again`,
      });
    }
    return undefined;
  }

  /** One VACUUM of `path`; true when it was asked for again while it ran (it needs one more pass). */
  private async vacuum(path: string, tempStore: "memory" | "file", signal: AbortSignal): Promise<boolean> {
    let finished = () => {};
    const running = { path, again: false, done: new Promise<void>((resolve) => (finished = resolve)) };
    this.running = running;
    try {
      const result = await runWorker(path, tempStore, signal);
      if (!result.truncated) {
        this.opts.log.warn(
          `memory: scrubbed ${basename(path)}, but its write-ahead log could not be truncated (a reader held it); it is cut at the next scrub`,
        );
      }
      this.opts.log.info(`memory: scrubbed ${basename(path)} in ${Math.round(result.vacuumMs)} ms`);
      return running.again;
    } finally {
      this.running = null;
      finished();
    }
  }

  /** `path` goes to the back of the queue again (asked for while it was being rewritten). */
  private requeue(path: string): void {
    this.waiting.splice(this.waiting.indexOf(path), 1);
    this.waiting.push(path);
    this.current = { ...this.current, total: this.current.total + 1 };
  }

  private done(path: string): void {
    this.waiting.splice(this.waiting.indexOf(path), 1);
    this.saveMarker();
    this.current = { ...this.current, done: this.current.done + 1 };
  }

  private finish(): void {
    const { current: _, ...rest } = this.current;
    this.current = { ...rest, state: "done", finishedAt: this.now() };
  }

  private fail(err: unknown): void {
    const { current: _, ...rest } = this.current;
    this.current = { ...rest, state: "failed", finishedAt: this.now(), error: errorMessage(err) };
    this.opts.log.warn(`memory: the scrub after forgetting failed: ${errorMessage(err)}`);
  }

  private saveMarker(): void {
    this.marker.write(this.waiting);
  }
}

interface WorkerResult {
  vacuumMs: number;
  truncated: boolean;
}

/**
 * One VACUUM in a worker thread. A VACUUM in progress cannot be interrupted (it is one native call), so when
 * the daemon stops (signal) the worker is let go instead of waited for: unref'd, it ends with the process,
 * and whatever it had not committed is rolled back by SQLite at the next open; the marker still lists the
 * database, so the next start scrubs it again.
 */
function runWorker(path: string, tempStore: "memory" | "file", signal: AbortSignal): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    compileInWorkersOwnThread();
    const worker = new Worker(WORKER_URL, {
      // The parent's flags would load tsx into the worker: slower, and not needed by plain JS.
      execArgv: [],
      workerData: { path, tempStore, busyMs: BUSY_MS, truncateTries: 100, truncatePauseMs: 50 },
    });
    const fail = (code: "scrub_stopped" | "scrub_failed", message: string, cause?: unknown) => {
      settle();
      reject(new ScrubError({ code, message, cause }));
    };
    const stop = () => {
      worker.unref();
      void worker.terminate();
      fail(
        "scrub_stopped",
        `the scrub of ${basename(path)} was stopped with the daemon; it runs again at the next start`,
      );
    };
    signal.addEventListener("abort", stop, { once: true });
    const settle = () => signal.removeEventListener("abort", stop);
    worker.once("message", (m: { ok: boolean; message?: string } & WorkerResult) => {
      settle();
      if (m.ok) resolve(m);
      else
        fail(
          "scrub_failed",
          `VACUUM of ${basename(path)} failed: ${m.message}; the forget stands, the next forget scrubs again`,
        );
    });
    worker.once("error", (err) =>
      fail("scrub_failed", `the scrub of ${basename(path)} crashed: ${errorMessage(err)}`, err),
    );
    worker.once("exit", (code) => fail("scrub_stopped", `the scrub of ${basename(path)} stopped (exit ${code})`));
  });
}

function fileSize(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}

function diskFree(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}
