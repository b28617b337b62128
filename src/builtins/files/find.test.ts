/** The name glob of files_find matches in linear time: many `*` on a long name cannot stall the daemon. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { globMatch } from "./find.js";

test("globs match as expected, and a hostile one on a long name answers at once", () => {
  assert.equal(globMatch("*.md", "Notes.MD"), true);
  assert.equal(globMatch("report-202?-*", "report-2026-q4.pdf"), true);
  assert.equal(globMatch("*.md", "notes.txt"), false);
  const started = performance.now();
  assert.equal(globMatch("*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(200)), false);
  assert.ok(performance.now() - started < 100, "the match backtracked");
});
