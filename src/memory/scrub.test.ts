/**
 * The scrub after a forget (scrub.ts) on real SQLite files. SQLite leaves a stale copy of a cell in a page's
 * unused space when b-tree pages are rebalanced (secure_delete does not reach it); when that happens depends
 * on the workload, so the tests put the bytes there themselves — in the gap between a live leaf page's cell
 * pointers and its cells, exactly where a hostile review found a forgotten PIN — and check that a scrub
 * takes them out of the database and its log while every row stays. Also: no room on the disk fails the
 * scrub at once with a reason; a crash leaves the databases listed and the next start scrubs them; a kill -9
 * in the middle of a VACUUM leaves a whole database.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, closeSync, existsSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { directJobs } from "../../test/fixtures/distill-fakes.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import type { Job } from "../kernel/jobs.js";
import { Scrubber } from "./scrub.js";
import { openMemoryStore } from "./store.js";

const SECRET = "My Bank Pin Is 7391-ZEBRA-QUARTZ";
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function holds(path: string): boolean {
  return [path, `${path}-wal`].some((f) => existsSync(f) && readFileSync(f).includes(Buffer.from(SECRET)));
}

/** A memory store with rows on many pages; returns its path, closed. */
function store(rows = 2000): string {
  const path = join(tempDir("scrub-"), "memory.db");
  const db = openMemoryStore(path, { checkpoints: false });
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO notes (text) VALUES (?)");
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(`note ${i}: ${"lorem ipsum ".repeat(5 + (i % 13))}`);
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return path;
}

/** Writes SECRET into the unused gap of a leaf page of `notes`, as a stale cell copy would sit there. */
function plantInFreeGap(path: string): void {
  const db = new Database(path, { readonly: true });
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const page = db
    .prepare("SELECT pageno FROM dbstat WHERE name = 'notes' AND pagetype = 'leaf' AND unused > 64 LIMIT 1")
    .pluck()
    .get() as number;
  db.close();
  const bytes = readFileSync(path);
  const at = (page - 1) * pageSize;
  const cells = bytes.readUInt16BE(at + 3);
  const contentStart = bytes.readUInt16BE(at + 5);
  const gapStart = at + 8 + 2 * cells;
  assert.ok(at + contentStart - gapStart > SECRET.length + 8, "the page has a gap to plant into");
  const fd = openSync(path, "r+");
  writeSync(fd, Buffer.from(SECRET), 0, SECRET.length, gapStart + 4);
  closeSync(fd);
}

function rowsAndIntegrity(path: string): { rows: number; integrity: string } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      rows: db.prepare("SELECT COUNT(*) FROM notes").pluck().get() as number,
      integrity: db.pragma("integrity_check", { simple: true }) as string,
    };
  } finally {
    db.close();
  }
}

test("a scrub removes text left in a page's free space and in the log; every row stays", async () => {
  const path = store();
  chmodSync(path, 0o600);
  plantInFreeGap(path);
  assert.deepEqual(rowsAndIntegrity(path), { rows: 2000, integrity: "ok" }, "the planted bytes are unused space");
  // The daemon's connection stays open through the scrub, as it does in homed.
  const live = openMemoryStore(path, { checkpoints: false });
  live.prepare("INSERT INTO notes (text) VALUES (?)").run("written after forgetting");
  assert.ok(holds(path), "the bytes are on the disk before the scrub");

  const marker = join(tempDir("scrub-marker-"), "scrub-pending.json");
  const scrubber = new Scrubber({ marker, runJob: directJobs(), log: quiet });
  const queued = scrubber.request([path]);
  assert.ok(["queued", "running"].includes(queued.state), queued.state);
  await waitFor(() => scrubber.status().state === "done", "the scrub", { timeoutMs: 20_000 });

  assert.equal(holds(path), false, "no copy of the text in memory.db or its log");
  assert.equal(statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0, 0, "the log is cut to nothing");
  assert.equal(live.prepare("SELECT COUNT(*) FROM notes").pluck().get(), 2001, "the live connection sees every row");
  assert.equal(statSync(path).mode & 0o777, 0o600, "still private");
  assert.equal(existsSync(marker), false, "nothing left to scrub");
  const s = scrubber.status();
  assert.equal(s.done, 1);
  assert.equal(s.total, 1);
  assert.ok((s.finishedAt ?? 0) >= (s.startedAt ?? Infinity));
  live.close();
  assert.deepEqual(rowsAndIntegrity(path), { rows: 2001, integrity: "ok" });
});

test("without room on the disk the scrub fails at once, with the reason, and nothing is queued", () => {
  const path = store(100);
  const warnings: string[] = [];
  const scrubber = new Scrubber({
    marker: join(tempDir("scrub-marker-"), "scrub-pending.json"),
    runJob: () => assert.fail("no job without room for it"),
    log: { ...quiet, warn: (m: string) => warnings.push(m) },
    freeBytes: () => 1024,
  });
  const s = scrubber.request([path]);
  assert.equal(s.state, "failed");
  assert.match(s.error ?? "", /not enough free disk space to scrub memory\.db: it needs about .*free some space/);
  assert.equal(warnings.length, 1);
});

test("a crash leaves the databases listed: the next start scrubs them", async () => {
  const path = store(200);
  plantInFreeGap(path);
  const marker = join(tempDir("scrub-marker-"), "scrub-pending.json");
  writeFileSync(marker, JSON.stringify([path]), { mode: 0o600 });
  const scrubber = new Scrubber({ marker, runJob: directJobs(), log: quiet });
  scrubber.resume();
  await waitFor(() => scrubber.status().state === "done", "the resumed scrub", { timeoutMs: 20_000 });
  assert.equal(holds(path), false);
  assert.equal(existsSync(marker), false);
});

test("kill -9 in the middle of a VACUUM leaves the old database or the new one, whole", async () => {
  const path = store(20_000);
  const worker = new URL("./scrub-worker.js", import.meta.url).pathname;
  // The scrub's own worker code, run as a process so it can be killed outright once VACUUM is writing.
  const script = `
    const { Worker } = require("node:worker_threads");
    new Worker(${JSON.stringify(worker)}, { workerData: { path: ${JSON.stringify(path)}, tempStore: "memory",
      busyMs: 1000, truncateTries: 1, truncatePauseMs: 1 } });`;
  let killedMidway = 0;
  for (let round = 0; round < 3; round++) {
    const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    // Killed once the VACUUM has written part of the new database into the log.
    await waitFor(() => (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 64 * 1024, "VACUUM writing", {
      timeoutMs: 20_000,
      intervalMs: 1,
    });
    if (child.exitCode === null) killedMidway++;
    child.kill("SIGKILL");
    await exited;
    assert.deepEqual(rowsAndIntegrity(path), { rows: 20_000, integrity: "ok" }, `round ${round}`);
  }
  assert.ok(killedMidway > 0, "at least one VACUUM was killed while it ran");
});

test("asked again while it rewrites the database, it rewrites it once more; writes can wait until it is idle", async () => {
  const path = store(20_000);
  const done: string[] = [];
  const log = { ...quiet, info: (m: string) => void done.push(m) };
  const scrubber = new Scrubber({ marker: join(tempDir("scrub-marker-"), "m.json"), runJob: directJobs(), log });
  scrubber.request([path]);
  await waitFor(() => scrubber.status().state === "running", "the scrub to run", { timeoutMs: 20_000, intervalMs: 1 });
  // A forget that lands now may delete rows the VACUUM has already copied: its scrub must not be skipped.
  scrubber.request([path]);
  await scrubber.idle();
  await waitFor(() => scrubber.status().state === "done", "both passes", { timeoutMs: 20_000 });
  assert.equal(done.filter((m) => m.startsWith("memory: scrubbed memory.db")).length, 2);
  assert.equal(scrubber.status().total, 2);
});

test("the daemon stopping does not wait for a VACUUM: the scrub is let go and left for the next start", async () => {
  const path = store(20_000);
  const marker = join(tempDir("scrub-marker-"), "m.json");
  const stopping = new AbortController();
  let ended: Promise<void> = Promise.resolve();
  const runJob = (job: Job) => {
    ended = job.step(stopping.signal).then(() => undefined);
    return ended;
  };
  const scrubber = new Scrubber({ marker, runJob, log: quiet });
  scrubber.request([path]);
  stopping.abort();
  await assert.rejects(ended, (err: Error & { code?: string }) => err.code === "scrub_stopped");
  await waitFor(() => scrubber.status().state === "failed", "the stop to be reported");
  assert.match(scrubber.status().error ?? "", /runs again at the next start/);
  assert.deepEqual(JSON.parse(readFileSync(marker, "utf8")), [path], "still listed for the next start");
  assert.deepEqual(rowsAndIntegrity(path), { rows: 20_000, integrity: "ok" });
});
