/**
 * Where a command runs: the workspace (`<data>/workspace`, where the dashboard's uploads are) or a folder in
 * it. The folder is checked by its real path, so `..`, an absolute path or a symbolic link cannot take a
 * command out of it — into the rest of the data dir (credentials, databases) least of all.
 */
import { mkdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { SdkError } from "@homeagent/sdk";

export function workspaceOf(daemonDataDir: string): string {
  const root = join(daemonDataDir, "workspace");
  mkdirSync(root, { recursive: true, mode: 0o700 });
  return root;
}

function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
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
