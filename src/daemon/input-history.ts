/**
 * `<data>/waiter_history`, waiter's input history, oldest line first. It sits in the data dir because it
 * holds what the user typed, so a forget must reach it wherever the forget comes from: the daemon purges it
 * on every forget (cli, dashboard, HTTP API, model); waiter also purges the file it resolved for a forget it
 * sends, which is another file when its socket is not in a data dir. waiter only ever appends a line, never
 * writes its memory over the file, so what the daemon purged stays purged.
 */
import { closeSync, constants, fchmodSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { forgetMatcher } from "@homeagent/sdk";
import { writePrivateFile } from "../util/private-file.js";

export const HISTORY_FILE_NAME = "waiter_history";
export const HISTORY_MAX = 1000;

/**
 * Lines that carry secrets, or name what is being forgotten, never reach the file. Leading white space does
 * not hide one: waiter trims a line before it sends it, so "  /auth …" is an /auth line.
 */
const SECRET_LINE = /^\s*\/(auth|settings\s+set|memory\s+forget)\b/;

const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

export function historyFile(dataDir: string): string {
  return join(dataDir, HISTORY_FILE_NAME);
}

/** The file's lines, oldest first; undefined when there is no file. */
function readLines(file: string): string[] | undefined {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

function writeLines(file: string, lines: readonly string[]): void {
  writePrivateFile(file, lines.length ? `${lines.join("\n")}\n` : "");
}

/**
 * Adds one line at the end; a secret line is left out. One write of a short line to an O_APPEND file lands
 * whole, also with two waiters at once; a symlink put in the file's place is refused, not followed.
 */
export function appendHistoryLine(file: string, line: string): void {
  if (SECRET_LINE.test(line)) return;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const fd = openSync(file, APPEND_FLAGS, 0o600);
  try {
    // The mode is only applied on creation: a file left wider is narrowed here.
    fchmodSync(fd, 0o600);
    writeSync(fd, `${line}\n`);
  } finally {
    closeSync(fd);
  }
}

/**
 * Rewrites the file (privately, so a file left wider or a symlink in its place does not survive) with its
 * newest HISTORY_MAX distinct lines, secret ones left out, and returns them oldest first. A repeated line
 * keeps only its newest place, as readline's removeHistoryDuplicates does. A missing file is not created.
 */
export function trimHistoryFile(file: string): string[] {
  const lines = readLines(file);
  if (lines === undefined) return [];
  const seen = new Set<string>();
  const kept: string[] = [];
  for (let i = lines.length - 1; i >= 0 && kept.length < HISTORY_MAX; i--) {
    const line = lines[i];
    if (seen.has(line) || SECRET_LINE.test(line)) continue;
    seen.add(line);
    kept.push(line);
  }
  kept.reverse();
  writeLines(file, kept);
  return kept;
}

/**
 * Counts the lines that mention every one of `terms`, matched as every other forget matches
 * (forgetMatcher: case-insensitive, NFKC; no terms match nothing), and removes them when `remove` is true,
 * by an atomic private rewrite. A missing file counts 0 and is not created.
 */
export function forgetInHistoryFile(file: string, terms: readonly string[], remove: boolean): number {
  const lines = readLines(file);
  if (lines === undefined) return 0;
  const mentions = forgetMatcher(terms);
  const kept = lines.filter((line) => !mentions(line));
  const matched = lines.length - kept.length;
  if (remove && matched > 0) writeLines(file, kept);
  return matched;
}
