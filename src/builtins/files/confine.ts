/**
 * Keeping the agent's file tools inside the folder the user gave them (`plugin.files.dir`, by default
 * `<data>/workspace`). A path is resolved against that folder and checked by its real path, so `..`, an
 * absolute path or a symbolic link cannot leave it; the rest of the data dir — credentials, databases,
 * plugins, skills, adapters — is never reachable, even when the user widens the folder to include it; a
 * file with more than one hard link is refused (another of its names may be outside, the credentials file
 * say). Between the check and the open a folder or the file can be swapped for a link: the folder is held
 * open and checked by its descriptor's own path, the file is opened through that descriptor
 * (`/proc/self/fd/N/name`, so a swap of any folder on the way changes nothing) without following a final
 * link, and what was opened is checked again. Without /proc (not Linux) the folder is opened by its path,
 * which narrows the race to the moment between the check and the open.
 */
import { closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { SdkError } from "@homeagent/sdk";

export interface Area {
  /** The folder the tools work in (real path). */
  root: string;
  /** The daemon's data dir (real path): never reachable, but for its workspace. */
  dataDir: string;
  /** `<data>/workspace` (real path): writes outside it (in a widened root) ask the user first. */
  workspace: string;
}

export function inside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The longest path and the deepest one the tools take: each level of a path costs a look on the disk. */
const MAX_PATH_CHARS = 4_096;
const MAX_PATH_DEPTH = 64;

function denied(message: string): SdkError {
  return new SdkError({ code: "path_denied", message });
}

/** Refuses a real path the tools may not touch; returns it. */
export function checkReal(area: Area, real: string, given: string): string {
  if (!inside(real, area.root)) {
    throw denied(`${given} is outside the folder the file tools work in (${area.root}, plugin.files.dir)`);
  }
  if (inside(real, area.dataDir) && !inside(real, area.workspace)) {
    throw denied(`${given} is in HomeAgent's own data folder, which the file tools never reach (only its workspace/)`);
  }
  return real;
}

/**
 * The real path `given` names (relative to the root), checked. A path that does not exist yet resolves
 * through its nearest existing folder, so a new file's place is checked as strictly as an existing one.
 */
export function resolvePath(area: Area, given: string): string {
  if (typeof given !== "string" || given.includes("\u0000")) throw denied("a path is a string without NUL");
  if (given.length > MAX_PATH_CHARS) {
    throw new SdkError({ code: "invalid_argument", message: `a path is at most ${MAX_PATH_CHARS} characters` });
  }
  const target = resolve(area.root, given === "" ? "." : given);
  if (relative(area.root, target).split(sep).length > MAX_PATH_DEPTH) {
    throw new SdkError({ code: "invalid_argument", message: `a path is at most ${MAX_PATH_DEPTH} folders deep` });
  }
  let existing = target;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(existing);
      return checkReal(area, rest.length > 0 ? join(real, ...rest.reverse()) : real, given);
    } catch (err) {
      if (err instanceof SdkError) throw err;
      if ((err as NodeJS.ErrnoException).code === "ENAMETOOLONG")
        throw denied(`${given.slice(0, 80)}… is too long a path`);
      const parent = dirname(existing);
      if (parent === existing) throw denied(`${given} cannot be resolved`);
      rest.push(basename(existing));
      existing = parent;
    }
  }
}

/** Where a descriptor's own path is read, and paths through a held folder go; undefined off Linux. */
const PROC_FD = existsSync("/proc/self/fd") ? "/proc/self/fd" : undefined;

/** A checked folder held open: names in it are reached through the descriptor, not the folder's path. */
export interface HeldFolder {
  /** Its real path when it was opened. */
  real: string;
  /** A path to `name` in this very folder, even if its path was swapped for a link since. */
  at(name: string): string;
  close(): void;
}

/** What a descriptor really opened, checked; the descriptor is closed when it is refused. */
function checkOpened(area: Area, fd: number, given: string, fallback: string): string {
  let real: string;
  try {
    real = PROC_FD ? readlinkSync(`${PROC_FD}/${fd}`) : realpathSync(fallback);
    checkReal(area, real, given);
  } catch (err) {
    closeSync(fd);
    if (err instanceof SdkError) throw err;
    throw denied(`${given} could not be checked after it was opened (${(err as Error).message}); not used`);
  }
  return real;
}

function openError(err: unknown, given: string): SdkError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ELOOP") return denied(`${given} became a symbolic link while it was being opened; not followed`);
  if (code === "ENOENT") return new SdkError({ code: "not_found", message: `no file ${given}`, cause: err });
  if (code === "EISDIR") return new SdkError({ code: "invalid_argument", message: `${given} is a folder`, cause: err });
  if (code === "ENOTDIR")
    return new SdkError({ code: "invalid_argument", message: `${given} is not a folder`, cause: err });
  return new SdkError({
    code: "internal_error",
    message: `${given} could not be opened: ${(err as Error).message}`,
    cause: err,
  });
}

/** Holds the checked folder `real` (a real path) open; `given` names it in errors. */
export function holdFolder(area: Area, real: string, given: string): HeldFolder {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (err) {
    // It was a real folder when it was resolved: now it is not, it was swapped (for a link, say).
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR" || code === "ELOOP")
      throw denied(`a folder on the way to ${given} changed while it was being opened; not followed`);
    throw openError(err, given);
  }
  return heldAt(fd, checkOpened(area, fd, given, real));
}

function heldAt(fd: number, real: string): HeldFolder {
  return {
    real,
    at: (name) => (PROC_FD ? `${PROC_FD}/${fd}/${name}` : join(real, name)),
    close: () => closeSync(fd),
  };
}

/**
 * The folders of a new file's place made one at a time, each inside the held one before it, so that a
 * folder swapped for a link on the way cannot make them elsewhere. Returns the last folder, held.
 */
export function holdFolderMaking(area: Area, real: string, given: string): HeldFolder {
  const missing: string[] = [];
  let existing = real;
  while (!existsSync(existing)) {
    missing.unshift(basename(existing));
    existing = dirname(existing);
  }
  let held = holdFolder(area, existing, given);
  for (const part of missing) {
    try {
      mkdirSync(held.at(part), { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
        held.close();
        throw openError(err, given);
      }
    }
    const next = join(held.real, part);
    held.close();
    held = holdFolder(area, next, given);
  }
  return held;
}

/**
 * Opens a checked path without following a link at its end (through its held folder), checks what was
 * opened, and refuses what is not a regular file or folder, or a file with more than one hard link.
 * `afterCheck` runs between the check and the open (tests swap things there).
 */
export function openChecked(area: Area, given: string, flags: number, mode = 0o600, afterCheck?: () => void): number {
  return openReal(area, given, flags, mode, afterCheck).fd;
}

/** openChecked, with the real path of what was opened (as the descriptor says). */
function openReal(
  area: Area,
  given: string,
  flags: number,
  mode = 0o600,
  afterCheck?: () => void,
): { fd: number; real: string } {
  const real = resolvePath(area, given);
  afterCheck?.();
  // O_NONBLOCK: a FIFO or device opened for reading would otherwise block the daemon until a writer came.
  const how = flags | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  let fd: number;
  // The root and the workspace are opened by path: their own folders (outside, or the data dir) are not held.
  if (real === area.root || real === area.workspace) {
    try {
      fd = openSync(real, how, mode);
    } catch (err) {
      throw openError(err, given);
    }
  } else {
    const folder = holdFolder(area, dirname(real), given);
    try {
      fd = openSync(folder.at(basename(real)), how, mode);
    } catch (err) {
      throw openError(err, given);
    } finally {
      folder.close();
    }
  }
  const opened = checkOpened(area, fd, given, real);
  const stat = fstatSync(fd);
  if (!stat.isFile() && !stat.isDirectory()) {
    closeSync(fd);
    throw new SdkError({
      code: "invalid_argument",
      message: `${given} is not a regular file (a pipe, socket or device)`,
    });
  }
  if (stat.isFile() && stat.nlink > 1) {
    closeSync(fd);
    throw denied(
      `${given} has ${stat.nlink} hard links: another of its names may be outside the folder, so it is not opened`,
    );
  }
  return { fd, real: opened };
}

/** A checked folder held open for listing (`given` relative to the root); refused when it is not a folder. */
export function openFolderChecked(area: Area, given: string): HeldFolder {
  const { fd, real } = openReal(area, given, constants.O_RDONLY | constants.O_DIRECTORY);
  return heldAt(fd, real);
}
