/**
 * Which commands run at once, which only after the user approves that exact command line, and which never:
 * `plugin.cmd.mode` (ask, allowlist, any, off) and the argument patterns of `plugin.cmd.allow`. A pattern is
 * a whole command line, not a program name — a name alone is not safe (`date -f ~/.homeagent/credentials`
 * prints the file's lines as "invalid date"; `date -s …` sets the clock) — whose words match literally, or a
 * word with `*` matches one argument of any text but a path. A path argument (with `/`, or starting with `~`
 * or `.`) never matches a pattern, and neither does a program outside the fixed PATH. A pattern runs a
 * command only away from the workspace (in a new empty folder, scratch.ts): in the workspace, files the model
 * wrote could steer it (`.git/config` can make `git status` run any program), so there it is always asked.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { SdkError } from "@homeagent/sdk";
import { splitCommand } from "./split.js";

export const MODES = ["ask", "allowlist", "any", "off"] as const;
export type CmdMode = (typeof MODES)[number];

export const DEFAULT_ALLOW = [
  "uname",
  "uname -a",
  "uname -s",
  "uptime",
  "whoami",
  "pwd",
  "df -h",
  "free -h",
  "date",
  "date +*",
];

export type Verdict = { run: true; why: string } | { run: false; ask: boolean; why: string };

/** Whether an argument names a file or folder: such an argument is never allowed by a pattern. */
export function isPathLike(arg: string): boolean {
  return arg.includes("/") || arg.startsWith("~") || arg.startsWith(".");
}

/**
 * The patterns of `plugin.cmd.allow`: one a line (or separated by `;`). A line that does not split (an
 * unclosed quote) allows nothing, rather than stopping every command.
 */
export function parsePatterns(text: string): string[][] {
  return text
    .split(/[\n;]/)
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .flatMap((line) => {
      try {
        return [splitCommand(line)];
      } catch {
        return [];
      }
    });
}

function wordMatches(pattern: string, arg: string): boolean {
  if (isPathLike(arg)) return false;
  // `date *` must not let `date -s12:00` or `date --set=…` through: `*` matches an option only where the
  // pattern's own word is one.
  if (arg.startsWith("-") && !pattern.startsWith("-")) return pattern === arg;
  if (!pattern.includes("*")) return pattern === arg;
  const parts = pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[^/]*")}$`, "s").test(arg);
}

function matchesPattern(argv: readonly string[], pattern: readonly string[]): boolean {
  if (argv.length !== pattern.length || argv[0] !== pattern[0]) return false;
  return argv.slice(1).every((arg, i) => wordMatches(pattern[i + 1], arg));
}

/**
 * The verdict on `argv` (its program found in the fixed PATH or not; run in the workspace or not). `ask:
 * true`: allowed once the user approves this exact command line; the reason says which setting or approval
 * would allow it.
 */
export function decide(
  mode: CmdMode,
  patterns: readonly string[][],
  argv: readonly string[],
  inPath: boolean,
  inWorkspace = false,
): Verdict {
  if (mode === "off")
    return {
      run: false,
      ask: false,
      why: "commands are off (plugin.cmd.mode = off); the user can turn them on in Settings",
    };
  if (mode === "any") return { run: true, why: "plugin.cmd.mode = any" };
  const matched = inPath && patterns.some((p) => matchesPattern(argv, p));
  if (matched && !inWorkspace) return { run: true, why: "it matches a pattern of plugin.cmd.allow" };
  const why = !inPath
    ? `"${argv[0]}" is not a program in /usr/local/bin, /usr/bin or /bin`
    : argv.slice(1).some(isPathLike)
      ? "it names a path, and a path never matches plugin.cmd.allow"
      : matched
        ? "it runs in the workspace (workdir), whose files the model can write, so no pattern runs it unasked"
        : "it matches no pattern of plugin.cmd.allow";
  if (mode === "allowlist") {
    return {
      run: false,
      ask: false,
      why: `${why}; plugin.cmd.mode is allowlist: the user can add a pattern to plugin.cmd.allow, or set the mode to ask`,
    };
  }
  return { run: false, ask: true, why: `${why}: it runs only once the user approves it` };
}

/**
 * Whether an argument reaches into HomeAgent's data folder (the workspace the model writes, the
 * credentials…) as a path: the whole argument, its value after `=`, or its tail from a `/` or `~` (`-f/x`),
 * resolved as the command would from its run folder under `scratchRoot`, links followed.
 */
export function namesDataDir(arg: string, dataDir: string, scratchRoot: string): boolean {
  const tails = [arg, arg.slice(arg.indexOf("=") + 1), arg.slice(arg.indexOf("/")), arg.slice(arg.indexOf("~"))];
  const data = realOf(dataDir);
  const scratch = realOf(scratchRoot);
  return tails.some((tail) => {
    if (!isPathLike(tail)) return false;
    const expanded = tail === "~" || tail.startsWith("~/") ? join(homedir(), tail.slice(1)) : tail;
    const real = realOf(resolve(scratch, "run", expanded));
    return within(real, data) && !within(real, join(scratch, "run"));
  });
}

/** The real path of `path`, through its nearest existing folder when it does not exist. */
function realOf(path: string): string {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      const up = dirname(at);
      if (up === at) return path;
      rest.push(basename(at));
      at = up;
    }
  }
}

function within(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

export function checkMode(value: string | undefined): CmdMode {
  if (value === undefined || value === "") return "ask";
  if ((MODES as readonly string[]).includes(value)) return value as CmdMode;
  throw new SdkError({ code: "config_invalid", message: `plugin.cmd.mode is one of ${MODES.join(", ")}` });
}
