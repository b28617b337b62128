/**
 * Interactive history, kept in a plain file, oldest entry first. It lives in the data dir of the daemon
 * waiter talks to (private like the rest of it), keeps no line that carries a secret or names what the user
 * forgets, and forgets with the daemon: `/memory forget --yes <query>` drops every line holding the query.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { CLI_SOCKET_NAME } from "@homeagent/cli-protocol";
import { resolveDataDir } from "../daemon/paths.js";
import { writePrivateFile } from "../util/private-file.js";

export const HISTORY_MAX = 1000;
const HISTORY_NAME = "waiter_history";

/** Lines that carry secrets, or name what is being forgotten, never reach the history file. */
const SECRET_LINE = /^\/(auth|settings\s+set|memory\s+forget)\b/;

/** Parses the line the way the cli plugin does (`/memory forget --yes <query>`). */
const CONFIRMED_FORGET = /^\/memory\s+forget\s+--yes\s+(\S.*)$/s;

type Env = Record<string, string | undefined>;

/**
 * `<data>/waiter_history` of the daemon behind the socket: an explicit socket named cli.sock sits in its
 * daemon's data dir; otherwise the data dir homed itself would use (HOMEAGENT_DATA, else ~/.homeagent).
 */
export function resolveHistoryPath(socketFlag: string | undefined, env: Env): string {
  const socket = socketFlag || env.HOMEAGENT_SOCKET;
  const dataDir =
    socket && basename(socket) === CLI_SOCKET_NAME ? dirname(resolve(socket)) : resolveDataDir(undefined, env);
  return join(dataDir, HISTORY_NAME);
}

/** Returns entries newest first, as readline's `history` option expects. */
export function loadHistory(file: string): string[] {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "" && !SECRET_LINE.test(line))
      .reverse()
      .slice(0, HISTORY_MAX);
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
  // Replaced whole, so a file left wider than 0600 (or a symlink put in its place) does not survive.
  writePrivateFile(file, kept.length ? `${kept.join("\n")}\n` : "");
}

/** The query of a confirmed `/memory forget --yes <query>` line; undefined for any other line. */
export function forgetQuery(line: string): string | undefined {
  return CONFIRMED_FORGET.exec(line.trim())?.[1].trim();
}

/**
 * Drops the lines holding `query` (case-insensitive) from the file, and from `entries` in place when given
 * (readline's own array, so the arrow keys no longer bring them back). Without `entries` and without a file
 * there is nothing to drop, and nothing is created.
 */
export function forgetInHistory(file: string, query: string, entries?: string[]): void {
  if (entries === undefined && !existsSync(file)) return;
  const held = entries ?? loadHistory(file);
  const needle = query.toLowerCase();
  const kept = held.filter((line) => !line.toLowerCase().includes(needle));
  held.splice(0, held.length, ...kept);
  saveHistory(file, kept);
}
