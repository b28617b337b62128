/**
 * waiter's side of its input history: which file, readline's newest-first list, and forgetting with the
 * daemon — `/memory forget --yes <query>` drops every line holding the query, from the list and the file.
 * The file itself (src/daemon/input-history.ts) is shared with the daemon, which purges it too.
 */
import { basename, dirname, resolve } from "node:path";
import { CLI_SOCKET_NAME, parseForgetArgs } from "@homeagent/cli-protocol";
import { forgetMatcher } from "@homeagent/sdk";
import { forgetInHistoryFile, historyFile, trimHistoryFile } from "../daemon/input-history.js";
import { resolveDataDir } from "../daemon/paths.js";

/** The arguments of a `/memory forget` line, read as the cli plugin reads them. */
const FORGET_LINE = /^\/memory\s+forget(?:\s(.*))?$/s;

type Env = Record<string, string | undefined>;

/**
 * `<data>/waiter_history` of the daemon behind the socket: an explicit socket named cli.sock sits in its
 * daemon's data dir; otherwise the data dir homed itself would use (HOMEAGENT_DATA, else ~/.homeagent).
 */
export function resolveHistoryPath(socketFlag: string | undefined, env: Env): string {
  const socket = socketFlag || env.HOMEAGENT_SOCKET;
  const dataDir =
    socket && basename(socket) === CLI_SOCKET_NAME ? dirname(resolve(socket)) : resolveDataDir(undefined, env);
  return historyFile(dataDir);
}

/** Trims the file at start and returns its entries newest first, as readline's `history` option expects. */
export function loadHistory(file: string): string[] {
  return trimHistoryFile(file).reverse();
}

/** The query of a confirmed `/memory forget --yes <query>` line; undefined for any other line. */
export function forgetQuery(line: string): string | undefined {
  const forget = FORGET_LINE.exec(line.trim());
  if (!forget) return undefined;
  const { confirm, query } = parseForgetArgs(forget[1] ?? "");
  return confirm && query ? query : undefined;
}

/**
 * Drops the lines holding `query` (case-insensitive) from the file, and from `entries` in place when given
 * (readline's own array, so the arrow keys no longer bring them back). Without a file nothing is created.
 */
export function forgetInHistory(file: string, query: string, entries?: string[]): void {
  if (entries) {
    const mentions = forgetMatcher([query]);
    const kept = entries.filter((line) => !mentions(line));
    entries.splice(0, entries.length, ...kept);
  }
  forgetInHistoryFile(file, [query], true);
}
