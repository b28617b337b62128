/**
 * The layering rules of DESIGN.md, checked on every run so they hold without anyone remembering them:
 * the kernel does no IO and knows no built-in plugin; a built-in plugin uses only the public SDK, Node,
 * npm packages and its own folder — exactly what an external plugin could use.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "./fixtures/node-entry.js";

const ROOT = REPO_ROOT;
const SRC = join(ROOT, "src");

const KERNEL_FORBIDDEN_NODE = new Set([
  "fs",
  "net",
  "http",
  "https",
  "http2",
  "child_process",
  "dgram",
  "tls",
  "worker_threads",
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(e.name) ? [path] : [];
  });
}

/** Every module specifier of a file: static imports, re-exports, dynamic import() and require(). */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) found.push(m[1]);
  return found;
}

function violations(files: string[], check: (file: string, spec: string) => string | undefined): string[] {
  const out: string[] = [];
  for (const file of files) {
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      const why = check(file, spec);
      if (why) out.push(`${relative(ROOT, file)}: imports "${spec}" — ${why}`);
    }
  }
  return out;
}

const nodeName = (spec: string) => spec.replace(/^node:/, "").split("/")[0];
const isNodeBuiltin = (spec: string) => spec.startsWith("node:") || builtinModules.includes(spec.split("/")[0]);

test("the kernel imports no IO module and no built-in plugin", () => {
  const bad = violations(sourceFiles(join(SRC, "kernel")), (file, spec) => {
    if (isNodeBuiltin(spec) && KERNEL_FORBIDDEN_NODE.has(nodeName(spec))) return "the kernel does no IO";
    if (spec.startsWith(".") && resolve(dirname(file), spec).startsWith(join(SRC, "builtins") + sep)) {
      return "the kernel must not know a built-in plugin";
    }
    return undefined;
  });
  assert.deepEqual(bad, []);
});

test("built-in plugins import only @homeagent/sdk, node:*, npm packages and their own folder", () => {
  const builtins = join(SRC, "builtins");
  // Their tests may use the shared test fixtures; the plugins themselves may not.
  const code = sourceFiles(builtins).filter((f) => !f.endsWith(".test.ts"));
  const bad = violations(code, (file, spec) => {
    if (isNodeBuiltin(spec)) return undefined;
    if (spec.startsWith(".")) {
      const own = join(builtins, relative(builtins, file).split(sep)[0]) + sep;
      const target = resolve(dirname(file), spec);
      // src/builtins/index.ts lists the factories: it is the daemon's side of the boundary.
      if (relative(builtins, file) === "index.ts")
        return target.startsWith(builtins + sep) ? undefined : "outside builtins/";
      return target.startsWith(own) ? undefined : "outside the plugin's own folder";
    }
    if (spec.startsWith("@homeagent/") && spec !== "@homeagent/sdk" && !spec.startsWith("@homeagent/sdk/")) {
      return spec === "@homeagent/cli-protocol" ? undefined : "only the public SDK";
    }
    return undefined;
  });
  assert.deepEqual(bad, []);
});

test("the import scanner sees every form of import", () => {
  const text = [
    'import a from "x1";',
    'import type { B } from "x2";',
    'import { c,\n d } from "x3";',
    'export { e } from "x4";',
    'export * from "x5";',
    'import "x6";',
    'const f = await import("x7");',
    'const g = require("x8");',
  ].join("\n");
  assert.deepEqual(importsOf(text).sort(), ["x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8"]);
});
