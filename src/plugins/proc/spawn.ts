/**
 * How a subprocess plugin is started. The child must never outlive the daemon, also when the daemon is
 * killed with SIGKILL and cannot clean up: on Linux the kernel does it for us through the parent-death
 * signal, which `setpriv --pdeathsig KILL` sets before it execs the plugin (same pid, nothing in between).
 * Where setpriv is missing the stdio runtime's parent watchdog (a thread polling the parent pid) is the
 * fallback, for plugins that use it.
 * Each child leads its own process group, so whatever it forks can be killed with it.
 */
import { type ChildProcessByStdio, spawn, spawnSync } from "node:child_process";
import {
  accessSync,
  constants,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

export type EntryKind = "js" | "bin";

/** Set for a child started with the parent-death signal; the SDK's stdio runtime reads it. */
export const PARENT_DEATH_ENV = "HOMEAGENT_PARENT_DEATH_SIGNAL";
/** The plugin's name, in every plugin child's environment. */
export const PLUGIN_NAME_ENV = "HOMEAGENT_PLUGIN";
/**
 * The daemon's data directory, in every plugin child's environment and inherited by whatever it forks:
 * how a later daemon on the same data directory finds what an earlier one left running (orphans.ts).
 */
export const PLUGIN_DATA_ENV = "HOMEAGENT_PLUGIN_DATA";
/**
 * Which daemon started the plugin, as "<pid>:<start time>" (the start time tells a reused pid apart): a
 * process whose daemon still runs is not an orphan, so a second homed on a data dir in use kills nothing.
 */
export const PLUGIN_DAEMON_ENV = "HOMEAGENT_PLUGIN_DAEMON";
/**
 * One plugin run (a random id per launch), inherited by whatever the plugin forks: at the plugin's exit,
 * what still carries it is killed (orphans.ts), also what left the plugin's process group.
 */
export const PLUGIN_RUN_ENV = "HOMEAGENT_PLUGIN_RUN";

/** "<pid>:<start time in clock ticks since boot>" of a live process (Linux); undefined where /proc is not. */
export function processIdentity(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command (which may hold spaces and parentheses): state is field 3, starttime 22.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return start ? `${pid}:${start}` : undefined;
  } catch {
    return undefined;
  }
}

export interface PluginCommand {
  command: string;
  args: string[];
}

/**
 * The command line of a plugin entry: `plugin.bin` runs itself; `plugin.js` runs under the daemon's own
 * node through the SDK's stdio runner (from source, i.e. in tests and dev, through tsx).
 */
export function pluginCommand(entryPath: string, kind: EntryKind): PluginCommand {
  if (kind === "bin") return { command: entryPath, args: [] };
  const runner = runnerPath();
  // Resolved here, not by name in the child: its cwd is the plugin's directory, where tsx is not installed.
  const dev = runner.endsWith(".ts") ? ["--import", import.meta.resolve("tsx"), "--conditions=development"] : [];
  return { command: process.execPath, args: [...DETECT_MODULE, ...dev, runner, entryPath] };
}

/**
 * plugin.js is an ES module whether or not a package.json says so (Node 22 does this by default; from 20.10
 * it takes this flag). An older Node needs `"type": "module"` in the plugin's package.json.
 */
const DETECT_MODULE = process.allowedNodeEnvironmentFlags.has("--experimental-detect-module")
  ? ["--experimental-detect-module"]
  : [];

function runnerPath(): string {
  return fileURLToPath(import.meta.resolve("@homeagent/sdk/stdio"));
}

/**
 * Makes `import … from "@homeagent/sdk"` in a plugin.js under `pluginsRoot` resolve to the daemon's own SDK,
 * through `<pluginsRoot>/node_modules/@homeagent/sdk` → the SDK package: Node's resolution looks there from
 * every plugin directory. A symlink rather than a module resolve hook, because registering a hook costs a
 * plugin ~150 ms of start (a loader thread), which is most of a crashed plugin's recovery time. A plugin
 * that ships its own copy in its own node_modules keeps it; a real directory put there by the user is left
 * alone.
 */
export function linkSdk(pluginsRoot: string): void {
  const sdkRoot = resolve(dirname(runnerPath()), "..", "..");
  const scope = join(pluginsRoot, "node_modules", "@homeagent");
  const link = join(scope, "sdk");
  let current: string | undefined;
  try {
    current = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : "(not a link)";
  } catch {
    current = undefined;
  }
  if (current === sdkRoot || current === "(not a link)") return;
  mkdirSync(scope, { recursive: true, mode: 0o700 });
  if (current !== undefined) unlinkSync(link);
  symlinkSync(sdkRoot, link, "dir");
}

export type PluginChild = ChildProcessByStdio<Writable, Readable, Readable>;

export interface SpawnOptions {
  name: string;
  dir: string;
  command: string;
  args: string[];
  /** The daemon's data directory (HOMEAGENT_PLUGIN_DATA). */
  dataDir: string;
  /** This launch's id (HOMEAGENT_PLUGIN_RUN). */
  runId: string;
}

/**
 * Starts the plugin with piped stdio, cwd = its directory, HOMEAGENT_PLUGIN = its name,
 * HOMEAGENT_PLUGIN_DATA = the daemon's data directory and HOMEAGENT_PLUGIN_RUN = this launch's id.
 */
export function spawnPlugin(opts: SpawnOptions): PluginChild {
  const wrapper = setprivPath();
  const [command, args] = wrapper
    ? [wrapper, ["--pdeathsig", "KILL", "--", opts.command, ...opts.args]]
    : [opts.command, opts.args];
  return spawn(command, args, {
    cwd: opts.dir,
    stdio: ["pipe", "pipe", "pipe"],
    // With the kernel's parent-death signal the stdio runtime needs no watchdog thread of its own.
    env: {
      ...withoutDaemonSecrets(process.env),
      [PLUGIN_NAME_ENV]: opts.name,
      [PLUGIN_DATA_ENV]: resolve(opts.dataDir),
      [PLUGIN_DAEMON_ENV]: processIdentity(process.pid) ?? String(process.pid),
      [PLUGIN_RUN_ENV]: opts.runId,
      ...(wrapper ? { [PARENT_DEATH_ENV]: "KILL" } : {}),
    },
    detached: true,
  });
}

/**
 * The daemon's environment without its own variables (HOMEAGENT_API_KEY, HOMEAGENT_LLM_API_KEY,
 * HOMEAGENT_ADMIN_PASSWORD, …): a plugin gets what its capabilities allow, not the keys the user started homed
 * with (with the API key it could authenticate on the cli socket as the user).
 */
function withoutDaemonSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([key]) => !key.startsWith("HOMEAGENT_")));
}

/** Kills the plugin's whole process group (the plugin and whatever it forked); quiet when it is gone. */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: nobody is left in the group.
  }
}

let setpriv: string | null | undefined;

/** setpriv's path when it exists and knows --pdeathsig (util-linux ≥ 2.33), found once per daemon. */
export function setprivPath(): string | null {
  if (setpriv !== undefined) return setpriv;
  const candidates = [
    "/usr/bin/setpriv",
    ...(process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => dir !== "")
      .map((dir) => join(dir, "setpriv")),
  ];
  const found = candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  const works = found && spawnSync(found, ["--pdeathsig", "KILL", "--", "true"], { timeout: 5000 }).status === 0;
  setpriv = works ? found : null;
  return setpriv;
}
