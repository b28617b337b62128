// Which tier each test file belongs to, read from what it does rather than from a list someone must keep:
//   browser     test/browser/ (a real Chromium)
//   durability  kills a process it started (SIGKILL) and checks what survives or dies with it
//   e2e         starts a daemon (bootstrap, or a real `homed`) or other programs (node:child_process, a
//               fixture plugin's process)
//   unit        everything else: no daemon, no subprocess, no browser — the inner loop
// "Starts a daemon" follows the test's imports through the repository's own files, so a fixture that
// assembles the daemon makes every test using it e2e.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { walk } from "./compile.mjs";

export const TIERS = ["unit", "e2e", "browser", "durability"];
const ROOTS = ["src", "test", "packages", "web"];
const DAEMON = ["src/daemon/bootstrap.ts", "test/fixtures/homed-process.ts"];

/** Every test file of the repository, by path from its root. */
export function testFiles() {
  return ROOTS.flatMap(walk)
    .filter((f) => f.endsWith(".test.ts"))
    .sort();
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g;

/** The repository files `file` imports (relative specifiers, `.js` written for a `.ts` source). */
function localImports(file, source) {
  const out = [];
  for (const match of source.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    const base = normalize(join(dirname(file), spec));
    const candidates = [base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx"), `${base}.ts`, base];
    const hit = candidates.find((c) => existsSync(c) && c.endsWith(".ts"));
    if (hit) out.push(hit);
  }
  return out;
}

/** The tier of every test file: Map<path, tier>. */
export function classify(files = testFiles()) {
  const sources = new Map();
  const read = (file) => {
    if (!sources.has(file)) sources.set(file, readFileSync(file, "utf8"));
    return sources.get(file);
  };
  const startsDaemon = new Map();
  const reaches = (file, seen = new Set()) => {
    if (startsDaemon.has(file)) return startsDaemon.get(file);
    if (DAEMON.includes(file)) return true;
    if (seen.has(file)) return false;
    seen.add(file);
    const hit = localImports(file, read(file)).some((dep) => reaches(dep, seen));
    startsDaemon.set(file, hit);
    return hit;
  };
  const tiers = new Map();
  for (const file of files) {
    const source = read(file);
    // A fixture plugin installed or launched is a real child process (test/fixtures/plugins.ts).
    const spawns = /from "node:child_process"|\b(?:installFixturePlugin|launchFixture)\(/.test(source);
    let tier = "unit";
    if (file.startsWith("test/browser/")) tier = "browser";
    else if (/\bSIGKILL\b/.test(source) && (spawns || reaches(file))) tier = "durability";
    else if (spawns || reaches(file)) tier = "e2e";
    tiers.set(file, tier);
  }
  return tiers;
}
