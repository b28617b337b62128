// Compiles the sources, tests, packages and benchmarks the tests import into .build/test/, once per test
// command, so that every test process (and every `homed`, `waiter` or plugin a test starts) runs plain
// JavaScript instead of transpiling the same files again through tsx. The tree mirrors the repository
// (src/, test/, packages/<name>/src/, bench/), so paths a test builds from its own location still hold;
// files the tests read but do not import (Lua adapters, worker entries, fixture plugins, README, docs,
// dist/) are copied or linked beside the compiled code. Rebuilt in full every time (esbuild: well under a
// second), then files no source produces any more are removed, so an edited or deleted source is never
// tested against a stale build.
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { build } from "esbuild";

export const BUILD_DIR = ".build/test";
const TS_ROOTS = ["src", "test", "bench", "packages/sdk/src", "packages/cli-protocol/src"];
/** Also copied as they are: the fixture installs a plugin.ts the way a user would have it; some tests import it. */
const VERBATIM = ["test/fixtures/plugins"];
/** Read by tests relative to the repository root. */
const LINKED = ["README.md", "docs", "dist"];
const PACKAGES = ["sdk", "cli-protocol"];
const TARGET = "node20";

/** Every file under `dir`, node_modules and dist left out. */
export function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.name === "node_modules" || entry.name === "dist") return [];
    return entry.isDirectory() ? walk(path) : [path];
  });
}

const isTs = (path) => /\.tsx?$/.test(path) && !path.endsWith(".d.ts");
const isVerbatim = (path) => VERBATIM.some((dir) => path.startsWith(`${dir}/`));

/** Compiles everything; returns the number of files compiled. */
export async function compileTests() {
  const files = TS_ROOTS.flatMap(walk);
  const sources = files.filter(isTs);
  const produced = new Set();
  const result = await build({
    entryPoints: sources,
    outdir: BUILD_DIR,
    outbase: ".",
    bundle: false,
    format: "esm",
    platform: "node",
    target: TARGET,
    sourcemap: "linked",
    logLevel: "error",
    metafile: true,
  });
  for (const out of Object.keys(result.metafile.outputs)) produced.add(out);
  for (const out of await compileWebTests()) produced.add(out);
  for (const file of files.filter((f) => !isTs(f) || isVerbatim(f))) {
    const to = join(BUILD_DIR, file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(file, to);
    produced.add(to);
  }
  writeManifests(produced);
  for (const name of LINKED) link(name, join(BUILD_DIR, name), produced);
  removeStale(produced);
  return sources.length;
}

/**
 * The dashboard's modules import extensionless paths, as the Vite build allows: each of its TypeScript (not
 * TSX) modules — its unit tests, and the pure logic the browser tests import — is bundled with its own
 * imports, npm packages left external.
 */
async function compileWebTests() {
  const entries = walk("web/src").filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  const result = await build({
    entryPoints: entries,
    outdir: join(BUILD_DIR, "web/src"),
    outbase: "web/src",
    bundle: true,
    packages: "external",
    format: "esm",
    platform: "node",
    target: TARGET,
    jsx: "automatic",
    jsxImportSource: "preact",
    sourcemap: "linked",
    logLevel: "error",
    metafile: true,
  });
  return Object.keys(result.metafile.outputs);
}

/**
 * package.json files read at run time (the daemon's and the SDK's versions), and the workspace packages as
 * `@homeagent/*` imports find them from the compiled tree: every export condition points at the compiled
 * sources, so a plugin process started without `--conditions=development` loads the same SDK files.
 */
function writeManifests(produced) {
  const root = join(BUILD_DIR, "package.json");
  copyFileSync("package.json", root);
  produced.add(root);
  for (const name of PACKAGES) {
    const manifest = JSON.parse(readFileSync(`packages/${name}/package.json`, "utf8"));
    for (const [key, conditions] of Object.entries(manifest.exports)) {
      const compiled = conditions.development.replace(/\.ts$/, ".js");
      manifest.exports[key] = { types: conditions.types, default: compiled };
    }
    const to = join(BUILD_DIR, "packages", name, "package.json");
    writeFileSync(to, `${JSON.stringify(manifest, null, 2)}\n`);
    produced.add(to);
    link(`../../packages/${name}`, join(BUILD_DIR, "node_modules/@homeagent", name), produced);
  }
}

/** A symlink at `at` to `target` (relative to the repository root unless it starts with "."). */
function link(target, at, produced) {
  mkdirSync(dirname(at), { recursive: true });
  const to = target.startsWith(".") ? target : relative(dirname(at), target);
  rmSync(at, { force: true, recursive: false });
  symlinkSync(to, at);
  produced.add(at);
}

function removeStale(produced) {
  const sweep = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (produced.has(path)) continue;
      if (entry.isDirectory() && !lstatSync(path).isSymbolicLink()) {
        sweep(path);
        if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
      } else {
        rmSync(path, { force: true });
      }
    }
  };
  sweep(BUILD_DIR);
}
