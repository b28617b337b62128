/**
 * files_find: files under a folder whose name matches a glob (`*.md`, `report-202?-*`) and, optionally,
 * whose text contains a string (case-insensitive). Bounded: entries looked at, bytes searched, time and
 * results each have a limit, a file over 1 MB is not searched, and what the tools never reach is skipped.
 */
import { constants } from "node:fs";
import { type FileHandle, open, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { type Area, checkReal, type HeldFolder, holdFolder, openFolderChecked } from "./confine.js";
import { binaryKind } from "./file-type.js";

const MAX_SEARCHED_BYTES = 1_000_000;
const MAX_RESULTS = 500;

export interface Found {
  path: string;
  /** The first matching line, when searching text. */
  line?: number;
  preview?: string;
}

/**
 * Whether `name` matches `glob` (`*` any run, `?` one character, case-insensitive), in linear time: a
 * regular expression of many `*` backtracks exponentially on a long name and would stall the daemon.
 */
export function globMatch(glob: string, name: string): boolean {
  const g = glob.toLowerCase();
  const n = name.toLowerCase();
  let gi = 0;
  let ni = 0;
  let star = -1;
  let mark = 0;
  while (ni < n.length) {
    if (gi < g.length && (g[gi] === "?" || g[gi] === n[ni])) {
      gi++;
      ni++;
    } else if (gi < g.length && g[gi] === "*") {
      star = gi++;
      mark = ni;
    } else if (star !== -1) {
      gi = star + 1;
      ni = ++mark;
    } else return false;
  }
  while (gi < g.length && g[gi] === "*") gi++;
  return gi === g.length;
}

export interface FindLimits {
  /** Entries looked at in all. */
  visited: number;
  /** Bytes of text searched in all. */
  searchedBytes: number;
  /** Milliseconds of walking. */
  timeMs: number;
}

const LIMITS: FindLimits = { visited: 10_000, searchedBytes: 32 * 1024 * 1024, timeMs: 5_000 };

/**
 * The walk, asynchronous so it never holds the daemon: each folder held open and checked (confine.ts), links
 * never followed, and three budgets — entries, bytes searched, time — whichever runs out first said.
 */
export async function findFiles(
  area: Area,
  opts: { path?: string; name?: string; text?: string; limit?: number },
  limits: FindLimits = LIMITS,
): Promise<{ found: Found[]; note?: string }> {
  const startFolder = openFolderChecked(area, opts.path ?? "");
  const stack = [startFolder.real];
  startFolder.close();
  const glob = opts.name?.slice(0, 256);
  const needle = opts.text?.toLowerCase();
  const limit = Math.min(Math.max(1, opts.limit ?? 100), MAX_RESULTS);
  const found: Found[] = [];
  const spent = { visited: 0, searchedBytes: 0, startedAt: performance.now() };
  let stopped = "";
  while (stack.length > 0 && found.length < limit && !stopped) {
    let folder: HeldFolder;
    try {
      folder = holdFolder(area, stack.pop() as string, "");
    } catch {
      continue;
    }
    try {
      const entries = await readdir(folder.at("."), { withFileTypes: true }).catch(() => []);
      for (const d of entries) {
        stopped = overBudget(spent, limits);
        if (stopped || found.length >= limit) break;
        spent.visited++;
        const full = join(folder.real, d.name);
        try {
          checkReal(area, full, d.name);
        } catch {
          continue;
        }
        // Links are not followed: a walk stays in the folder.
        if (d.isDirectory()) stack.push(full);
        if (!d.isFile() || (glob && !globMatch(glob, d.name))) continue;
        const path = relative(area.root, full);
        if (!needle) {
          found.push({ path });
          continue;
        }
        const hit = await searchText(folder.at(d.name), needle, spent);
        if (hit) found.push({ path, ...hit });
      }
    } finally {
      folder.close();
    }
  }
  const notes: string[] = [];
  if (stopped) notes.push(`stopped: ${stopped}; narrow path, name or text`);
  if (found.length >= limit) notes.push(`the first ${limit} results`);
  return notes.length > 0 ? { found, note: notes.join("; ") } : { found };
}

function overBudget(spent: { visited: number; searchedBytes: number; startedAt: number }, limits: FindLimits): string {
  if (spent.visited >= limits.visited) return `${limits.visited} entries looked at`;
  if (spent.searchedBytes >= limits.searchedBytes) return `${limits.searchedBytes} bytes searched`;
  if (performance.now() - spent.startedAt >= limits.timeMs) return `${limits.timeMs / 1000} s spent`;
  return "";
}

/** The first line of the file at `at` (in a held folder) holding `needle`; a link, a big or binary file is skipped. */
async function searchText(
  at: string,
  needle: string,
  spent: { searchedBytes: number },
): Promise<{ line: number; preview: string } | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.nlink > 1 || stat.size > MAX_SEARCHED_BYTES) return undefined;
    const buf = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(buf, 0, stat.size, 0);
    spent.searchedBytes += bytesRead;
    if (binaryKind(buf.subarray(0, 8_192))) return undefined;
    const lines = buf.subarray(0, bytesRead).toString("utf8").split("\n");
    const at = lines.findIndex((l) => l.toLowerCase().includes(needle));
    return at === -1 ? undefined : { line: at + 1, preview: lines[at].slice(0, 200) };
  } finally {
    await handle.close();
  }
}
