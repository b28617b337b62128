/**
 * Where a command runs: the workspace (`<data>/workspace`, where the dashboard's uploads are) or a folder in
 * it. The folder is checked by its real path, so `..`, an absolute path or a symbolic link cannot take a
 * command out of it — into the rest of the data dir (credentials, databases) least of all. What the folder
 * holds matters too: an argument naming something in it is a path, and hidden settings files in it or above
 * it keep a command from running unasked (policy.ts).
 */
import { lstatSync, mkdirSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { SdkError } from "@homeagent/sdk";

export function workspaceOf(daemonDataDir: string): string {
  const root = join(daemonDataDir, "workspace");
  mkdirSync(root, { recursive: true, mode: 0o700 });
  return root;
}

function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The real path of `given` (relative to the workspace; default the workspace itself) when it is inside. */
export function confineWorkdir(root: string, given: string | undefined): string {
  const target = given === undefined || given === "" ? root : resolve(root, given);
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    throw new SdkError({ code: "not_found", message: `no folder ${given} in the workspace (${root})` });
  }
  if (!inside(real, realpathSync(root))) {
    throw new SdkError({
      code: "path_denied",
      message: `workdir must be a folder in the workspace (${root}); ${given} is outside it`,
    });
  }
  if (!statSync(real).isDirectory()) {
    throw new SdkError({ code: "invalid_argument", message: `workdir ${given} is not a folder` });
  }
  return real;
}

/** Whether `arg` names something in `workdir` (an option, starting with `-`, never does). */
export function namesEntry(workdir: string, arg: string): boolean {
  if (arg.startsWith("-") || arg === "" || arg.includes("\u0000")) return false;
  return lstatSync(resolve(workdir, arg), { throwIfNoEntry: false }) !== undefined;
}

/** Hidden entries named at most (one is enough to ask). */
const MAX_NAMED = 5;

/**
 * Hidden entries (`.git`, `.npmrc`, `.envrc`…) in `workdir` and each folder above it up to the workspace:
 * programs take settings from them (git from `.git/config`, searched upwards), and the model can write
 * them, so a command run there is not trusted unasked. Listed relative to the workspace.
 */
export function folderConfig(root: string, workdir: string): string[] {
  const found: string[] = [];
  const top = realpathSync(root);
  for (let dir = workdir; inside(dir, top); dir = dirname(dir)) {
    for (const name of readdirSync(dir)) {
      if (name.startsWith(".") && found.length < MAX_NAMED) found.push(relative(top, join(dir, name)));
    }
    if (dir === top) break;
  }
  return found;
}
