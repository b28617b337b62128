/**
 * `tsc` emits only what it compiles: the plain JavaScript files under src/ (worker threads' entry files,
 * loaded by URL at run time) reach dist/ only through scripts/copy-assets.mjs. Tests run from src/, so a file
 * left out would break only the built daemon — the scrub worker once was, and every scrub after a forget
 * failed in `npm start` while `npm test` passed.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "./fixtures/node-entry.js";

const ROOT = REPO_ROOT;

function plainJs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return plainJs(path);
    return e.name.endsWith(".js") ? [relative(join(ROOT, "src"), path)] : [];
  });
}

test("every plain JavaScript file of src/ is in dist/ after the build", {
  skip: !existsSync(join(ROOT, "dist")) && "no build: run npm run build",
}, () => {
  const files = plainJs(join(ROOT, "src"));
  assert.ok(files.includes(join("memory", "scrub-worker.js")) && files.includes(join("lua", "lua-worker.js")));
  assert.deepEqual(
    files.filter((f) => !existsSync(join(ROOT, "dist", f))),
    [],
    "copy them in scripts/copy-assets.mjs",
  );
});
