// Test files that share a process: each tier's files (never two tiers together) split into one group per
// concurrent slot, balanced by the last run's timings, and an entry file per group that runs its files one
// after another, each in a suite named after it — so a file's hooks stay its own, a file that fails to load
// is a failing test named after it, and what a file changes in the process (environment variables, umask)
// is put back before the next one runs.
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Groups of [file, tier] entries: per tier, at most `slots` groups. */
export function shareGroups(entries, slots, cost) {
  const groups = [];
  for (const tier of new Set(entries.map(([, t]) => t))) {
    const files = entries.filter(([, t]) => t === tier).sort((a, b) => cost(b) - cost(a));
    const mine = Array.from({ length: Math.min(slots, files.length) }, () => ({ tier, files: [], ms: 0 }));
    for (const entry of files) {
      const lightest = mine.reduce((a, b) => (b.ms < a.ms ? b : a));
      lightest.files.push(entry[0]);
      lightest.ms += cost(entry);
    }
    groups.push(...mine);
  }
  return groups;
}

const PRELUDE = `import { after, describe, test } from "node:test";
const env = { ...process.env };
const umask = process.umask(0o022);
process.umask(umask);
function restore() {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
  process.umask(umask);
}
function file(name, url) {
  describe(name, async () => {
    after(restore);
    try {
      await import(url);
    } catch (err) {
      test("the file loads", () => {
        throw err;
      });
    }
  });
}
`;

/** Writes the entry file of group `index` into `dir`; returns its path. */
export function writeGroupEntry(dir, index, group, compiledPath) {
  const path = join(dir, `${group.tier}-${index}.test.js`);
  const lines = [...group.files].sort().map((f) => {
    const url = pathToFileURL(resolve(compiledPath(f))).href;
    return `file(${JSON.stringify(f)}, ${JSON.stringify(url)});`;
  });
  writeFileSync(path, `${PRELUDE}${lines.join("\n")}\n`);
  return path;
}
