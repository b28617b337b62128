/** Interactive history, kept in a plain file, oldest entry first. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const HISTORY_MAX = 1000;

/** Lines that carry secrets never reach the history file. */
const SECRET_LINE = /^\/(auth|settings\s+set)\b/;

/** Returns entries newest first, as readline's `history` option expects. */
export function loadHistory(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).reverse().slice(0, HISTORY_MAX);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

/** `entries` newest first, as readline's `history` event delivers them. */
export function saveHistory(file: string, entries: string[]): void {
  const kept = entries
    .filter((line) => !SECRET_LINE.test(line))
    .slice(0, HISTORY_MAX)
    .reverse();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, kept.length ? `${kept.join("\n")}\n` : "", { mode: 0o600 });
}
