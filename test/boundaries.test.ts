/**
 * The layering rules of DESIGN.md, checked on every run so they hold without anyone remembering them: an
 * allowlist of which folders each folder of src/ may import, no import cycles, the kernel does no IO, and a
 * built-in plugin uses only the public SDK, Node, npm packages and its own folder — exactly what an
 * external plugin could use.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { test } from "node:test";
import {
  type Allowlist,
  hiddenImports,
  importCycles,
  importGraph,
  importsOf,
  layerViolations,
  sourceFiles,
} from "./fixtures/import-graph.js";
import { REPO_ROOT } from "./fixtures/node-entry.js";

const ROOT = REPO_ROOT;
const SRC = join(ROOT, "src");

/**
 * DESIGN's layering: each folder of src/ (memory's rooms apart) and the folders it may import besides its
 * own. Lower layers first; daemon/ assembles everything and only bin/ sits above it. A new folder fails the
 * test until it is added here with what it may use.
 */
const ALLOW: Allowlist = {
  util: [],
  // The kernel declares what it uses (llm-spec.ts, ports.ts, types.ts); the rest of src/ implements it.
  kernel: ["util"],
  events: ["util", "kernel"],
  io: ["util", "kernel"],
  transcripts: ["util", "kernel", "embedding"],
  config: ["util"],
  lua: ["util"],
  embedding: ["util", "config"],
  retrieval: ["util", "embedding"],
  knowledge: ["util", "embedding", "retrieval"],
  llm: ["util", "config", "kernel", "lua"],
  auth: ["util"],
  "memory/window": ["util", "kernel", "retrieval", "memory", "memory/documents"],
  "memory/documents": ["util", "kernel", "embedding", "retrieval", "memory"],
  "memory/graph": ["util", "kernel", "embedding", "retrieval", "memory"],
  "memory/distill": ["util", "config", "embedding", "retrieval", "memory", "memory/graph"],
  memory: [
    "util",
    "kernel",
    "config",
    "embedding",
    "retrieval",
    "memory/window",
    "memory/documents",
    "memory/graph",
    "memory/distill",
  ],
  // src/version.ts
  ".": [],
  plugins: [".", "util", "config", "kernel", "io", "embedding", "auth"],
  // Built-in plugins import no src/ folder at all (the next test: only the SDK and their own folder).
  builtins: [],
  daemon: [
    ".",
    "util",
    "events",
    "io",
    "kernel",
    "config",
    "lua",
    "embedding",
    "retrieval",
    "knowledge",
    "llm",
    "auth",
    "memory",
    "memory/distill",
    "plugins",
    "builtins",
    "transcripts",
  ],
  bin: [".", "util", "auth", "daemon"],
};

/** src/'s import graph, read once for the tests below. */
const GRAPH = importGraph(SRC);

test("each folder of src/ imports only the folders the allowlist gives it", () => {
  assert.deepEqual(layerViolations(GRAPH, ALLOW), []);
});

test("src/ has no import cycles (type-only imports included)", () => {
  assert.deepEqual(importCycles(GRAPH), []);
});

test("a broken rule is caught: an import the allowlist refuses, an unlisted folder, a cycle", () => {
  const graph = new Map([
    ["kernel/turn.ts", new Set(["llm/provider.ts", "util/errors.ts"])],
    ["llm/provider.ts", new Set(["kernel/llm-spec.ts"])],
    ["kernel/llm-spec.ts", new Set(["kernel/turn.ts"])],
    ["util/errors.ts", new Set<string>()],
    ["gadgets/x.ts", new Set(["util/errors.ts"])],
  ]);
  assert.deepEqual(layerViolations(graph, ALLOW), [
    "kernel/turn.ts imports llm/provider.ts: kernel/ may import only util",
    "gadgets/x.ts: its folder is not in the allowlist — add it, with the folders it may import",
  ]);
  assert.deepEqual(importCycles(graph), [["kernel/llm-spec.ts", "kernel/turn.ts", "llm/provider.ts"]]);
  assert.deepEqual(
    layerViolations(GRAPH, { ...ALLOW, daemon: ALLOW.daemon.filter((f) => f !== "io") }).length > 0,
    true,
  );
});

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

/** The imports src/ makes that the scanner cannot follow: npm packages, loaded if installed or when needed. */
const HIDDEN_ALLOWED = new Map([
  ["embedding/transformers.ts", ["import(MODULE)"]],
  // jieba is loaded on first CJK text, and synchronously: tokenize is (segmenter.ts).
  ["embedding/segmenter.ts", ["createRequire"]],
]);

test("src/ hides no import from the checks: no computed import() and no createRequire", () => {
  const bad: string[] = [];
  for (const file of sourceFiles(SRC).filter((f) => !f.endsWith(".test.ts"))) {
    const name = relative(SRC, file).split(sep).join("/");
    const hidden = hiddenImports(readFileSync(file, "utf8")).filter((h) => !HIDDEN_ALLOWED.get(name)?.includes(h));
    for (const h of hidden) bad.push(`${name}: ${h}`);
  }
  assert.deepEqual(bad, []);
  const computed = ["import(`../llm/$", "{x}.js`)"].join("");
  assert.deepEqual(hiddenImports(`await ${computed}; createRequire(import.meta.url); import("ok")`), [
    computed,
    "createRequire",
  ]);
});

test("the kernel imports no IO module and no npm package but the SDK (its src/ imports: the allowlist)", () => {
  const bad = violations(sourceFiles(join(SRC, "kernel")), (_file, spec) => {
    if (isNodeBuiltin(spec) && KERNEL_FORBIDDEN_NODE.has(nodeName(spec))) return "the kernel does no IO";
    if (!isNodeBuiltin(spec) && !spec.startsWith(".") && !spec.startsWith("@homeagent/sdk")) {
      return "the kernel uses no npm package but the SDK (it declares what it needs; the daemon gives it)";
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
    "const h = await import(`x9`);",
  ].join("\n");
  assert.deepEqual(importsOf(text).sort(), ["x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9"]);
});
