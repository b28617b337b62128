/**
 * Processes a plugin left behind, found by a marker in their environment. Killing a plugin's process group
 * does not reach what it forked into a group or session of its own (setsid), and the parent-death signal
 * reaches only the plugin itself; but every process inherits its parent's environment, so each one still
 * names the plugin run that started it. Two scans use that:
 * - when a plugin process exits (crash or stop), every process carrying that run's own marker
 *   (PLUGIN_RUN_ENV) is killed, so a crashed plugin's whole tree ends at once and no other plugin's does;
 * - when a daemon starts on a data directory, before it launches any plugin, every process of its user
 *   whose environment names that directory (PLUGIN_DATA_ENV) is killed — unless the daemon that started it
 *   (PLUGIN_DAEMON_ENV) still runs: a second homed on a data dir in use must not kill the first one's plugins.
 * What stays out of reach: a descendant that starts with a scrubbed environment (`env -i`, or an exec with
 * an environment of its own), runs as another user, or lives where /proc is not (other than Linux). Only a
 * cgroup (a systemd scope) would hold those; a subreaper would not tell which plugin such a process came from.
 */
import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { PLUGIN_DAEMON_ENV, PLUGIN_DATA_ENV, PLUGIN_RUN_ENV, processIdentity } from "./spawn.js";

/** Scans of one plugin's tree: a process forked between a scan and its parent's kill is found by the next. */
const MAX_TREE_SCANS = 8;

/** Kills the leftover plugin processes of `dataDir`; resolves with their pids. Elsewhere than Linux: none. */
export function killOrphans(dataDir: string): Promise<number[]> {
  return killCarrying(marker(PLUGIN_DATA_ENV, resolve(dataDir)), (environ) => !daemonAlive(environ));
}

/**
 * Kills every process still carrying plugin run `runId`'s marker (what the plugin forked, in whatever
 * group or session); resolves with their pids. Elsewhere than Linux: none.
 */
export async function killPluginTree(runId: string): Promise<number[]> {
  const entry = marker(PLUGIN_RUN_ENV, runId);
  const killed = new Set<number>();
  for (let scan = 0; scan < MAX_TREE_SCANS; scan++) {
    // One killed a moment ago may still be on its way out, and is found again: only new ones mean another scan.
    const found = (await killCarrying(entry, () => true)).filter((pid) => !killed.has(pid));
    if (found.length === 0) break;
    for (const pid of found) killed.add(pid);
  }
  return [...killed];
}

/** "\0NAME=value\0": how the variable appears in an environment framed by NULs (see `carries`). */
function marker(name: string, value: string): Buffer {
  return Buffer.from(`\0${name}=${value}\0`);
}

/** Kills (SIGKILL) each process of our user but this one whose environment holds `entry` and passes `also`. */
async function killCarrying(entry: Buffer, also: (environ: Buffer) => boolean): Promise<number[]> {
  if (process.platform !== "linux" || !existsSync("/proc/self/environ")) return [];
  const uid = process.getuid?.();
  const pids = (await readdir("/proc")).filter((n) => /^\d+$/.test(n)).map(Number);
  const found = await Promise.all(
    pids.filter((pid) => pid !== process.pid).map(async (pid) => ((await carries(pid, uid, entry, also)) ? pid : 0)),
  );
  return found.filter((pid) => pid > 0 && kill(pid));
}

const NUL = Buffer.from([0]);

/** Whether `pid` runs as `uid` and its environment holds `entry` and passes `also`. */
async function carries(
  pid: number,
  uid: number | undefined,
  entry: Buffer,
  also: (environ: Buffer) => boolean,
): Promise<boolean> {
  try {
    if (uid !== undefined && (await stat(`/proc/${pid}`)).uid !== uid) return false;
    const environ = Buffer.concat([NUL, await readFile(`/proc/${pid}/environ`), NUL]);
    // Each variable is "NAME=value\0"; NULs around let the first and the last one match too.
    return environ.includes(entry) && also(environ);
  } catch {
    // Gone meanwhile, or not ours to read.
    return false;
  }
}

/** Whether the daemon named in the environment (PLUGIN_DAEMON_ENV) still runs: then its plugins are not orphans. */
function daemonAlive(environ: Buffer): boolean {
  const key = Buffer.from(`\0${PLUGIN_DAEMON_ENV}=`);
  const at = environ.indexOf(key);
  if (at < 0) return false;
  const value = environ.subarray(at + key.length, environ.indexOf(0, at + key.length)).toString();
  const pid = Number(value.split(":")[0]);
  return pid > 0 && processIdentity(pid) === value;
}

function kill(pid: number): boolean {
  try {
    process.kill(pid, "SIGKILL");
    return true;
  } catch {
    return false;
  }
}
