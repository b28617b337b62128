/**
 * Finding the program of a command: a bare name only in the fixed PATH (/usr/local/bin, /usr/bin, /bin — not
 * the user's PATH, which may hold anything, and not the working folder), a name with a `/` as the file it
 * names. Only a program found in the fixed PATH can match an allow pattern; any other needs the user's
 * approval.
 */
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { SdkError } from "@homeagent/sdk";

export const FIXED_PATH = ["/usr/local/bin", "/usr/bin", "/bin"];

export interface Program {
  /** The file to execute. */
  file: string;
  /** Found by name in the fixed PATH. */
  inPath: boolean;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The program `name` names: a bare name in the fixed PATH, a name with a `/` as that file — not looked at
 * yet, so that a refused or unapproved command tells nothing of what exists (checkProgram, before it runs).
 */
export function findProgram(name: string, workdir: string): Program {
  if (name.includes("/")) return { file: isAbsolute(name) ? name : resolve(workdir, name), inPath: false };
  for (const dir of FIXED_PATH) {
    const file = join(dir, name);
    if (executable(file)) return { file, inPath: true };
  }
  throw new SdkError({
    code: "not_found",
    message: `no program "${name}" in ${FIXED_PATH.join(", ")}; give its full path (the user is then asked)`,
  });
}

/** Refuses a program given by path that is not an executable file. */
export function checkProgram(program: Program, name: string): void {
  if (!executable(program.file)) {
    throw new SdkError({ code: "not_found", message: `${name} is not an executable file` });
  }
}
