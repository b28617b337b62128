/**
 * Which commands run at once, which only after the user approves that exact command line, and which never:
 * `plugin.cmd.mode` (ask, allowlist, any, off) and the argument patterns of `plugin.cmd.allow`. A pattern is
 * a whole command line, not a program name — a name alone is not safe (`date -f ~/.homeagent/credentials`
 * prints the file's lines as "invalid date"; `date -s …` sets the clock) — whose words match literally, or a
 * word with `*` matches one argument of any text but a path. A path argument (with `/`, starting with `~` or
 * `.`, or the name of something in the folder — `python3 *` must not run a script the model wrote) never
 * matches a pattern, and neither does a program outside the fixed PATH. In a folder holding settings a
 * program may follow (`.git/config` can make `git status` run any program), no pattern runs a command unasked.
 */
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

function wordMatches(pattern: string, arg: string, isPath: (arg: string) => boolean): boolean {
  if (isPath(arg)) return false;
  // `date *` must not let `date -s12:00` or `date --set=…` through: `*` matches an option only where the
  // pattern's own word is one.
  if (arg.startsWith("-") && !pattern.startsWith("-")) return pattern === arg;
  if (!pattern.includes("*")) return pattern === arg;
  const parts = pattern.split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[^/]*")}$`, "s").test(arg);
}

export function matchesPattern(
  argv: readonly string[],
  pattern: readonly string[],
  isPath: (arg: string) => boolean = isPathLike,
): boolean {
  if (argv.length !== pattern.length || argv[0] !== pattern[0]) return false;
  return argv.slice(1).every((arg, i) => wordMatches(pattern[i + 1], arg, isPath));
}

/** What decide() knows of the place a command would run in. */
export interface Place {
  /** Whether an argument names a file or folder (the path-like ones, and any name present in the folder). */
  isPath?: (arg: string) => boolean;
  /**
   * Entries a program may take settings from (`.git`, `.npmrc`…) in the folder or one above it in the
   * workspace: the model can write them, so with any there a pattern does not run a command unasked.
   */
  folderConfig?: readonly string[];
}

/**
 * The verdict on `argv` (its program found in the fixed PATH or not). `ask: true`: allowed once the user
 * approves this exact command line; the reason says which setting or approval would allow it.
 */
export function decide(
  mode: CmdMode,
  patterns: readonly string[][],
  argv: readonly string[],
  inPath: boolean,
  place: Place = {},
): Verdict {
  if (mode === "off")
    return {
      run: false,
      ask: false,
      why: "commands are off (plugin.cmd.mode = off); the user can turn them on in Settings",
    };
  if (mode === "any") return { run: true, why: "plugin.cmd.mode = any" };
  const isPath = place.isPath ?? isPathLike;
  const config = place.folderConfig ?? [];
  const matched = inPath && patterns.some((p) => matchesPattern(argv, p, isPath));
  if (matched && config.length === 0) return { run: true, why: "it matches a pattern of plugin.cmd.allow" };
  const why = !inPath
    ? `"${argv[0]}" is not a program in /usr/local/bin, /usr/bin or /bin`
    : argv.slice(1).some(isPath)
      ? "it names a path, and a path never matches plugin.cmd.allow"
      : matched
        ? `it would run in a folder holding ${config.join(", ")}, settings the model could have written, so no pattern runs it unasked`
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

export function checkMode(value: string | undefined): CmdMode {
  if (value === undefined || value === "") return "ask";
  if ((MODES as readonly string[]).includes(value)) return value as CmdMode;
  throw new SdkError({ code: "config_invalid", message: `plugin.cmd.mode is one of ${MODES.join(", ")}` });
}
