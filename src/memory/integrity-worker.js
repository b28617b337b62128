// Checks memory.db in its own thread and its own read-only connection (integrity-check.ts): SQLite's
// integrity_check reads every page and compares every index with its table, which takes seconds on a large
// file and cannot be interrupted, so it must never hold the daemon's event loop. Then the vectors whose item
// is gone. Plain JavaScript, so that it runs without a loader from src/ and from dist/.
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { path, maxProblems, busyMs, vectorTables } = workerData;

function databasePart(db) {
  const started = performance.now();
  const rows = db.pragma(`integrity_check(${maxProblems})`);
  const problems = rows.map((r) => String(Object.values(r)[0])).filter((line) => line !== "ok");
  return { name: "database", problems, durationMs: performance.now() - started };
}

function vectorPart(db) {
  const started = performance.now();
  const problems = [];
  let stray = 0;
  // The names come from the daemon (retrieval/vector-index.ts), never from the file.
  for (const table of vectorTables) {
    const orphan = `FROM ${table} v WHERE NOT EXISTS (SELECT 1 FROM search_items i WHERE i.rowid = v.rowid)`;
    const count = db.prepare(`SELECT count(*) ${orphan}`).pluck().get();
    if (count === 0) continue;
    stray += count;
    const rowids = db.prepare(`SELECT v.rowid ${orphan} LIMIT ?`).pluck().all(maxProblems);
    problems.push(`${table}: ${count} vector(s) without an item (rowid ${rowids.join(", ")})`);
  }
  return {
    name: "vector_index",
    problems,
    stray,
    spaces: vectorTables.length,
    durationMs: performance.now() - started,
  };
}

let db;
try {
  db = new Database(path, { readonly: true, fileMustExist: true, timeout: busyMs });
  parentPort.postMessage({ ok: true, part: databasePart(db) });
  parentPort.postMessage({ ok: true, part: vectorPart(db) });
} catch (err) {
  parentPort.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) });
} finally {
  db?.close();
}
