/**
 * Plugin processes an earlier daemon left running. The parent-death signal kills a plugin child when the
 * daemon dies, even by SIGKILL, but not what that child forked: such grandchildren live on with nobody to
 * stop them. Every plugin child carries the daemon's data directory in HOMEAGENT_PLUGIN_DATA, and whatever
 * it forks inherits it; so a daemon starting on a data directory, before it launches any plugin itself,
 * kills every process of its own user whose environment names that directory (Linux, through /proc) —
 * unless the daemon that started it (PLUGIN_DAEMON_ENV) still runs: a second homed on a data dir in use
 * must not kill the first one's plugins.
 */
import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { PLUGIN_DAEMON_ENV, PLUGIN_DATA_ENV, processIdentity } from "./spawn.js";

/** Kills the leftover plugin processes of `dataDir`; resolves with their pids. Elsewhere than Linux: none. */
export async function killOrphans(dataDir: string): Promise<number[]> {
  if (process.platform !== "linux" || !existsSync("/proc/self/environ")) return [];
  const uid = process.getuid?.();
  const entry = Buffer.from(`\0${PLUGIN_DATA_ENV}=${resolve(dataDir)}\0`);
  const pids = (await readdir("/proc")).filter((n) => /^\d+$/.test(n)).map(Number);
  const found = await Promise.all(
    pids.filter((pid) => pid !== process.pid).map(async (pid) => ((await carries(pid, uid, entry)) ? pid : 0)),
  );
  return found.filter((pid) => pid > 0 && kill(pid));
}

const NUL = Buffer.from([0]);

/** Whether `pid` runs as `uid` and its environment holds `entry` ("\0NAME=value\0"). */
async function carries(pid: number, uid: number | undefined, entry: Buffer): Promise<boolean> {
  try {
    if (uid !== undefined && (await stat(`/proc/${pid}`)).uid !== uid) return false;
    const environ = Buffer.concat([NUL, await readFile(`/proc/${pid}/environ`), NUL]);
    // Each variable is "NAME=value\0"; NULs around let the first and the last one match too.
    return environ.includes(entry) && !daemonAlive(environ);
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
