/**
 * files_find: files under a folder whose name matches a glob (`*.md`, `report-202?-*`) and, optionally,
 * whose text contains a string (case-insensitive). Bounded: folders walked, files read and results found
 * each have a limit, a file over 1 MB is not searched, and what the tools never reach is skipped.
 */
import { closeSync, constants, fstatSync, readdirSync, readSync } from "node:fs";
import { join, relative } from "node:path";
import { type Area, checkReal, openChecked, resolvePath } from "./confine.js";
import { binaryKind } from "./file-type.js";

const MAX_VISITED = 10_000;
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

export function findFiles(
  area: Area,
  opts: { path?: string; name?: string; text?: string; limit?: number },
): { found: Found[]; note?: string } {
  const start = resolvePath(area, opts.path ?? "");
  const glob = opts.name?.slice(0, 256);
  const needle = opts.text?.toLowerCase();
  const limit = Math.min(Math.max(1, opts.limit ?? 100), MAX_RESULTS);
  const found: Found[] = [];
  const stack = [start];
  let visited = 0;
  while (stack.length > 0 && found.length < limit) {
    const folder = stack.pop() as string;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const d of entries) {
      if (++visited > MAX_VISITED || found.length >= limit) break;
      const full = join(folder, d.name);
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
      const hit = searchText(area, path, needle);
      if (hit) found.push({ path, ...hit });
    }
  }
  const notes: string[] = [];
  if (visited > MAX_VISITED) notes.push(`stopped after ${MAX_VISITED} entries: narrow path or name`);
  if (found.length >= limit) notes.push(`the first ${limit} results`);
  return notes.length > 0 ? { found, note: notes.join("; ") } : { found };
}

function searchText(area: Area, path: string, needle: string): { line: number; preview: string } | undefined {
  let fd: number;
  try {
    fd = openChecked(area, path, constants.O_RDONLY);
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_SEARCHED_BYTES) return undefined;
    const buf = Buffer.alloc(size);
    readSync(fd, buf, 0, size, 0);
    if (binaryKind(buf.subarray(0, 8_192))) return undefined;
    const lines = buf.toString("utf8").split("\n");
    const at = lines.findIndex((l) => l.toLowerCase().includes(needle));
    return at === -1 ? undefined : { line: at + 1, preview: lines[at].slice(0, 200) };
  } finally {
    closeSync(fd);
  }
}
