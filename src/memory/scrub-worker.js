// Rewrites one SQLite database in its own thread and connection (scrub.ts): VACUUM copies only the live rows
// into fresh pages, so text a forget removed no longer lingers in free pages or in the unused space of a
// page, which secure_delete does not reach; then the write-ahead log, which held the old pages, is cut to
// zero bytes. Plain JavaScript, so that it runs without a loader from src/ and from dist/. The daemon's own
// connection keeps reading meanwhile (WAL); its writes wait for the VACUUM's lock.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { path, tempStore, busyMs, truncateTries, truncatePauseMs } = workerData;

function truncateLog(db) {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < truncateTries; i++) {
    const [row] = db.pragma("wal_checkpoint(TRUNCATE)");
    if (row && row.busy === 0) return true;
    // Someone is reading an older snapshot: let them finish. Blocking is fine in this thread.
    Atomics.wait(pause, 0, 0, truncatePauseMs);
  }
  return false;
}

let db;
try {
  db = new Database(path, { fileMustExist: true, timeout: busyMs });
  db.pragma(`temp_store = ${tempStore === "memory" ? "MEMORY" : "FILE"}`);
  const started = performance.now();
  db.exec("VACUUM");
  const vacuumMs = performance.now() - started;
  const truncated = truncateLog(db);
  parentPort.postMessage({ ok: true, vacuumMs, truncated });
} catch (err) {
  parentPort.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
} finally {
  db?.close();
}
