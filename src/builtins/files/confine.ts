/**
 * Keeping the agent's file tools inside the folder the user gave them (`plugin.files.dir`, by default
 * `<data>/workspace`). A path is resolved against that folder and checked by its real path, so `..`, an
 * absolute path or a symbolic link cannot leave it; the rest of the data dir — credentials, databases,
 * plugins, skills, adapters — is never reachable, even when the user widens the folder to include it; a
 * file with more than one hard link is refused (another of its names may be outside, the credentials file
 * say). Between the check and the open a folder or the file can be swapped for a link: the file is opened
 * without following a final link, and what was opened is checked again by the descriptor's own path.
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
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
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

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
  const target = resolve(area.root, given === "" ? "." : given);
  let existing = target;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = realpathSync(existing);
      return checkReal(area, rest.length > 0 ? join(real, ...rest.reverse()) : real, given);
    } catch (err) {
      if (err instanceof SdkError) throw err;
      const parent = dirname(existing);
      if (parent === existing) throw denied(`${given} cannot be resolved`);
      rest.push(basename(existing));
      existing = parent;
    }
  }
}

/** What the descriptor really opened, checked again: a folder swapped for a link after the check is caught here. */
function checkOpened(area: Area, fd: number, given: string): void {
  let real: string;
  try {
    real = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return;
  }
  try {
    checkReal(area, real, given);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * Opens a checked path without following a link at its end, checks what was opened, and refuses a file
 * with more than one hard link. `afterCheck` runs between the check and the open (tests swap things there).
 */
export function openChecked(area: Area, given: string, flags: number, mode = 0o600, afterCheck?: () => void): number {
  const real = resolvePath(area, given);
  afterCheck?.();
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO or device opened for reading would otherwise block the daemon until a writer came.
    fd = openSync(real, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw denied(`${given} became a symbolic link while it was being opened; not followed`);
    if (code === "ENOENT") throw new SdkError({ code: "not_found", message: `no file ${given}`, cause: err });
    if (code === "EISDIR")
      throw new SdkError({ code: "invalid_argument", message: `${given} is a folder`, cause: err });
    throw err;
  }
  checkOpened(area, fd, given);
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
  return fd;
}
