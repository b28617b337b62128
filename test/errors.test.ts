/**
 * DESIGN.md's error convention, checked on every run: everything the daemon and the SDK throw is an
 * SdkError (the daemon's HomeAgentError and its subclasses extend it), so every failure carries one of the
 * SDK's ErrorCode list and its cause. A bare `new Error(…)` or a class extending plain Error has no code,
 * so a program (the web UI, a plugin, a test) could only tell it apart by its message. Tests may throw what
 * they like; the plain-JavaScript worker entries (lua-worker.js, scrub-worker.js) cannot import the SDK.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { sourceFiles } from "./fixtures/import-graph.js";
import { REPO_ROOT } from "./fixtures/node-entry.js";

const ROOTS = ["src", "packages/sdk/src", "packages/cli-protocol/src"];
/** The one class allowed to extend Error itself. */
const SDK_ERROR_FILE = "packages/sdk/src/errors.ts";

/** `Error(…)`, `new Error(…)`, `new RangeError(…)` and the other built-in error constructors. */
const BARE_ERROR = /(?<![\w.$])(?:new\s+)?(?:Type|Range|Syntax|Reference|Eval|URI|Aggregate)?Error\s*\(/g;
const EXTENDS_ERROR = /\bextends\s+(?:Type|Range|Syntax|Reference|Eval|URI|Aggregate)?Error\b(?!\w)/g;

/** Each match of `re` in `text` as "file:line: the line". */
function offenders(file: string, text: string, re: RegExp): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(re)) {
    const line = text.slice(0, m.index).split("\n").length;
    out.push(`${file}:${line}: ${text.split("\n")[line - 1].trim()}`);
  }
  return out;
}

/** Every non-test TypeScript file under ROOTS: [path from the repository root, text]. */
function sources(): Array<[string, string]> {
  return ROOTS.flatMap((root) =>
    sourceFiles(join(REPO_ROOT, root))
      .filter((path) => path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.endsWith(".d.ts"))
      .map((path): [string, string] => [relative(REPO_ROOT, path), readFileSync(path, "utf8")]),
  );
}

test("nothing outside tests throws a bare Error: use HomeAgentError, SdkError or a subclass", () => {
  const bare = sources().flatMap(([file, text]) => offenders(file, text, BARE_ERROR));
  assert.deepEqual(
    bare,
    [],
    `bare Errors have no code: throw HomeAgentError (src/util/errors.ts) or a subclass with a code from the SDK's ErrorCode list (packages/sdk/src/errors.ts) — built-in plugins throw SdkError from @homeagent/sdk:\n${bare.join("\n")}`,
  );
});

test("no error class but SdkError extends plain Error", () => {
  const extending = sources()
    .filter(([file]) => file !== SDK_ERROR_FILE)
    .flatMap(([file, text]) => offenders(file, text, EXTENDS_ERROR));
  assert.deepEqual(
    extending,
    [],
    `error classes extend HomeAgentError (or SdkError in built-in plugins and the SDK), not Error:\n${extending.join("\n")}`,
  );
});

test("the scanner sees every form of a bare Error and leaves coded ones alone", () => {
  const text = [
    'throw new Error("a");',
    "throw Error(`b`);",
    "reject(new RangeError(c));",
    "class A extends Error {}",
    "class B extends TypeError {}",
    'throw new SdkError({ code: "not_found", message: "d" });',
    "class C extends HomeAgentError {}",
    "if (err instanceof Error) return;",
  ].join("\n");
  assert.deepEqual(
    offenders("x.ts", text, BARE_ERROR).map((o) => o.split(":")[1]),
    ["1", "2", "3"],
  );
  assert.deepEqual(
    offenders("x.ts", text, EXTENDS_ERROR).map((o) => o.split(":")[1]),
    ["4", "5"],
  );
});
