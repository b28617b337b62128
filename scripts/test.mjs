// The test command: compiles the tests once (scripts/test/compile.mjs), then runs them as JavaScript with
// node's test runner.
//
//   node scripts/test.mjs [tier …] [filter …] [node test flags …]
//
// Tiers: unit, e2e, browser, durability (scripts/test/tiers.mjs); none named runs them all. A filter keeps
// the files whose path contains it, or any of several ("memory/", "forget"). Flags starting with "--" go to
// node, e.g. `npm test -- --test-name-pattern=interrupt` (scripts/test/args.mjs).
//
// Unit files share one process per concurrent slot, and so do e2e files (scripts/test/shared.mjs); browser
// and durability files get a process each. The slowest start first, by the timings of the previous run
// (.build/test-timings.json).
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { parseArgs } from "./test/args.mjs";
import { BUILD_DIR, compileTests, walk } from "./test/compile.mjs";
import { holdLock, releaseLock } from "./test/lock.mjs";
import { shareGroups, writeGroupEntry } from "./test/shared.mjs";
import { classify, TIERS } from "./test/tiers.mjs";

const TIMINGS = ".build/test-timings.json";
const LOCK = ".build/test.lock";
/** This run's entry files and timings; one run at a time holds the lock, so one folder serves. */
const RUN_DIR = ".build/test-run";
const RUN_TIMINGS = join(RUN_DIR, "timings.json");
/** Guesses for files without a timing yet: the heavier tiers start first. */
const GUESS_MS = { browser: 8000, durability: 6000, e2e: 4000, unit: 500 };
/**
 * Tiers whose files share processes, one per concurrent slot (a process's start and the daemon's imports
 * are paid once per slot, not once per file). Browser and durability files keep a process each: one
 * drives its own Chromium, the other kills processes and checks what survives.
 */
const SHARED = ["unit", "e2e"];

let parsed;
try {
  parsed = parseArgs(process.argv.slice(2));
} catch (err) {
  console.error(err.message);
  process.exit(2);
}
const { tiers, filters, nodeFlags } = parsed;
const cores = availableParallelism();
const concurrency = Number(process.env.HOMEAGENT_TEST_CONCURRENCY) || cores + 1;

const started = performance.now();
holdLock(LOCK, BUILD_DIR);
process.on("exit", () => releaseLock(LOCK));
// Holding the lock, this is the only run: what an earlier one left (killed outright) can go.
rmSync(RUN_DIR, { recursive: true, force: true });
const compiled = await compileTests();
if (tiers.length === 0 || tiers.includes("browser")) freshDashboard();
const compileMs = Math.round(performance.now() - started);

const all = classify();
const files = [...all].filter(
  ([file, tier]) =>
    (tiers.length === 0 || tiers.includes(tier)) && (filters.length === 0 || filters.some((f) => file.includes(f))),
);
if (files.length === 0) {
  console.error(`no test file matches ${[...tiers, ...filters].join(" ") || "anything"}`);
  process.exit(1);
}
mkdirSync(RUN_DIR, { recursive: true });
const timings = existsSync(TIMINGS) ? JSON.parse(readFileSync(TIMINGS, "utf8")) : {};
const cost = ([file, tier]) => timings[file] ?? GUESS_MS[tier];

const shared = files.filter(([, tier]) => SHARED.includes(tier));
const alone = files.filter(([, tier]) => !SHARED.includes(tier));
const entries = [
  ...shareGroups(shared, concurrency, cost).map((group, i) => ({
    path: writeGroupEntry(RUN_DIR, i, group, compiledPath),
    ms: group.ms,
  })),
  ...alone.map((f) => ({ path: compiledPath(f[0]), ms: cost(f) })),
].sort((a, b) => b.ms - a.ms);

console.log(
  `compiled ${compiled} files in ${compileMs} ms; ${files.length} test files ` +
    `(${TIERS.map((t) => `${files.filter(([, tier]) => tier === t).length} ${t}`).join(", ")}) ` +
    `in ${entries.length} processes, ${concurrency} at a time`,
);
const child = spawn(
  process.execPath,
  [
    "--conditions=development",
    "--test",
    `--test-concurrency=${concurrency}`,
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=./scripts/test/timings-reporter.mjs",
    `--test-reporter-destination=${RUN_TIMINGS}`,
    ...nodeFlags,
    ...entries.map((e) => e.path),
  ],
  // Every daemon a test starts with the default plugins serves the web UI: on a free port, never the user's 8080.
  { stdio: "inherit", env: { HOMEAGENT_WEBUI_ADDR: "127.0.0.1:0", ...process.env } },
);
// Ctrl-C or a stop reaches the test processes, and the lock is let go only once they have ended.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
const [status, signal] = await once(child, "exit");
saveTimings();
rmSync(RUN_DIR, { recursive: true, force: true });
console.log(`test command: ${((performance.now() - started) / 1000).toFixed(1)} s wall`);
process.exit(status ?? (signal ? 1 : 0));

/** The browser tests load the built dashboard (dist/web): rebuilt first when a file of web/ is newer. */
function freshDashboard() {
  const built = join("dist", "web", "index.html");
  const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
  if (Math.max(0, ...walk("web").map((f) => statSync(f).mtimeMs)) <= builtAt) return;
  console.log("web/ changed since dist/web was built: building the dashboard");
  const vite = spawnSync("npx", ["vite", "build", "--config", "web/vite.config.ts", "--logLevel", "warn"], {
    stdio: "inherit",
  });
  if (vite.status !== 0) process.exit(vite.status ?? 1);
}

function compiledPath(file) {
  return join(BUILD_DIR, file.replace(/\.ts$/, ".js"));
}

/** Merges this run's file timings into the ones kept for the next run. */
function saveTimings() {
  if (!existsSync(RUN_TIMINGS)) return;
  try {
    const run = JSON.parse(readFileSync(RUN_TIMINGS, "utf8"));
    writeFileSync(TIMINGS, JSON.stringify({ ...timings, ...run }, null, 1));
  } catch {
    // A run cut short leaves no timings; the previous ones stay.
  }
}
