/**
 * The workspace in the dashboard: `GET /api/v1/workspace?path=` lists a folder of `<data>/workspace` (where
 * the agent's file tools work and uploads land), `GET /api/v1/workspace/file?path=` downloads a file, always
 * as an attachment, and `DELETE /api/v1/workspace/file?path=` removes one. A path is checked by its real path
 * against the workspace, links are never followed, a file is reached through its folder held open (so a
 * folder swapped for a link meanwhile changes nothing), and a file with several hard links is not served
 * (another of its names may be outside).
 */
import { constants, createReadStream, type Dirent, existsSync, mkdirSync, realpathSync } from "node:fs";
import { type FileHandle, lstat, open, opendir, readlink, unlink } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { Readable } from "node:stream";
import type { Context } from "hono";
import { ApiError, type RouteGroup, type WebEnv } from "../context.js";
import { attachmentDisposition } from "../upload-names.js";

const MAX_PATH_CHARS = 4_096;
const MAX_ENTRIES = 2_000;
/** Entries of one folder read at most, of which MAX_ENTRIES are listed. */
const MAX_READ = 10_000;

interface WorkspaceEntry {
  name: string;
  type: "file" | "folder" | "link" | "other";
  size: number;
  modifiedAt: number;
}

export const workspaceRoutes: RouteGroup = (app, { sdk }) => {
  const made = join(sdk.daemonDataDir, "workspace");
  mkdirSync(made, { recursive: true, mode: 0o700 });
  // Resolved once: every path of every request is checked against the workspace's real path.
  const root = realpathSync(made);

  app.get("/api/v1/workspace", async (c) => {
    const { real, shown } = place(root, c);
    // Held open without following a link (a link to a folder would list what is outside), and checked.
    let folder: FileHandle;
    try {
      folder = await open(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch {
      throw new ApiError(404, "not_found", `no folder ${shown} in the workspace (a link is not followed)`);
    }
    try {
      const at = await checkedPath(root, folder, real);
      const names = await firstEntries(at, MAX_READ);
      const entries: WorkspaceEntry[] = [];
      for (const d of names.sort((a, b) => a.name.localeCompare(b.name)).slice(0, MAX_ENTRIES)) {
        const st = await lstat(join(at, d.name)).catch(() => null);
        entries.push({
          name: d.name,
          type: d.isSymbolicLink() ? "link" : d.isDirectory() ? "folder" : d.isFile() ? "file" : "other",
          size: st?.size ?? 0,
          modifiedAt: Math.round(st?.mtimeMs ?? 0),
        });
      }
      return c.json({
        path: shown,
        entries,
        ...(names.length > MAX_ENTRIES ? { more: names.length - MAX_ENTRIES } : {}),
      });
    } finally {
      await folder.close();
    }
  });

  app.get("/api/v1/workspace/file", async (c) => {
    const { real, shown } = place(root, c);
    let handle: FileHandle;
    try {
      // O_NONBLOCK: a FIFO would hold a thread of the pool until a writer came.
      handle = await inFolder(root, real, (at) =>
        open(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK),
      );
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ApiError(404, "not_found", `no file ${shown} in the workspace`);
    }
    const st = await handle.stat();
    if (!st.isFile() || st.nlink > 1) {
      await handle.close();
      throw new ApiError(
        404,
        "not_found",
        `${shown} is not a file the dashboard serves (a folder, or a file with several names)`,
      );
    }
    const body = Readable.toWeb(createReadStream("", { fd: handle })) as ReadableStream<Uint8Array>;
    return new Response(body, {
      status: 200,
      headers: {
        "Content-Type": "application/octet-stream",
        "Content-Length": String(st.size),
        "Content-Disposition": attachmentDisposition(basename(real)),
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
      },
    });
  });

  app.delete("/api/v1/workspace/file", async (c) => {
    const { real, shown } = place(root, c);
    await inFolder(root, real, async (at) => {
      const st = await lstat(at).catch(() => null);
      if (!st || st.isDirectory()) throw new ApiError(404, "not_found", `no file ${shown} in the workspace`);
      await unlink(at);
    });
    return c.json({ removed: shown });
  });
  return undefined;
};

/** Where a descriptor's own path is read; undefined off Linux. */
const PROC_FD = existsSync("/proc/self/fd") ? "/proc/self/fd" : undefined;

/**
 * Runs `use` on the last part of `real` through its folder held open and checked by the descriptor's own
 * path: a folder on the way swapped for a link after place() checked it cannot send a download or a removal
 * elsewhere. Off Linux, the path is used as it is.
 */
async function inFolder<T>(root: string, real: string, use: (at: string) => Promise<T>): Promise<T> {
  if (real === root) throw new ApiError(404, "not_found", "the workspace itself is a folder");
  let folder: FileHandle;
  try {
    folder = await open(dirname(real), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    throw new ApiError(404, "not_found", "no such place in the workspace");
  }
  try {
    return await use(join(await checkedPath(root, folder, dirname(real)), basename(real)));
  } finally {
    await folder.close();
  }
}

/**
 * A path to the folder held open in `handle`, checked by the descriptor's own path to be in the workspace
 * (`/proc/self/fd/N`, which stays that folder whatever is swapped meanwhile); off Linux, `real` itself.
 */
async function checkedPath(root: string, handle: FileHandle, real: string): Promise<string> {
  if (!PROC_FD) return real;
  const opened = await readlink(`${PROC_FD}/${handle.fd}`);
  if (!within(opened, root)) {
    throw new ApiError(403, "path_denied", "a folder on the way changed while it was being opened; not followed");
  }
  return `${PROC_FD}/${handle.fd}`;
}

function within(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The first `max` entries of a folder, read one by one: a folder of a million files is not read whole. */
async function firstEntries(path: string, max: number): Promise<Dirent[]> {
  const dir = await opendir(path);
  const out: Dirent[] = [];
  try {
    for (let d = await dir.read(); d !== null && out.length < max; d = await dir.read()) out.push(d);
  } finally {
    await dir.close();
  }
  return out;
}

/**
 * The `path` query inside the workspace (`root`, a real path): its folder resolved by real path, its last
 * part never followed (a link is listed and removed as a link, not as what it points to).
 */
function place(root: string, c: Context<WebEnv>): { real: string; shown: string } {
  const given = c.req.query("path") ?? "";
  if (given.length > MAX_PATH_CHARS || given.includes("\u0000")) {
    throw new ApiError(400, "invalid_argument", `path must be at most ${MAX_PATH_CHARS} characters, without NUL`);
  }
  const target = resolve(root, given === "" ? "." : given);
  let folder: string;
  try {
    folder = realpathSync(resolve(target, ".."));
  } catch {
    throw new ApiError(404, "not_found", `no such place in the workspace: ${given}`);
  }
  const real = target === root ? root : join(folder, basename(target));
  const rel = relative(root, real);
  if (!within(real, root)) {
    throw new ApiError(403, "path_denied", `${given} is outside the workspace`);
  }
  return { real, shown: rel || "." };
}
