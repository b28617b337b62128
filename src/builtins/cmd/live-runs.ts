/**
 * What a command leaves running outside its process group, and every command still running when the plugin
 * stops. A descendant that calls setsid leaves the group, so the group kill misses it — and it can hold the
 * command's output pipes open. So every run carries a random marker in its environment, which its
 * descendants inherit, and the end of a run kills each process whose /proc/<pid>/environ holds the marker.
 * Best-effort: a process that execs with a fresh environment (env -i) escapes; only processes of the
 * daemon's own user can be read (all of them as root); where there is no /proc there is no scan.
 */
import { randomBytes } from "node:crypto";
import { type FileHandle, open, readdir } from "node:fs/promises";

/** Not HOMEAGENT_*: those are taken out of a command's environment. */
export const MARKER_VAR = "HA_CMD_RUN";
/** A scan reads at most this many processes, the newest pids (an escaped descendant is recent)… */
const MAX_PIDS = 4_096;
/** …and at most this much of each environment (the marker is its first variable). */
const MAX_ENVIRON_BYTES = 64 * 1024;
/** A marked process may fork before it is killed: scan again while a scan kills something, this many in all. */
const MAX_SCANS = 3;

export function newMarker(): string {
  return randomBytes(16).toString("hex");
}

/** What a run gives the plugin's stop. */
export interface LiveRun {
  readonly marker: string;
  /** SIGKILL to its process group at once, unless it has exited already. */
  kill(): void;
}

/** The runs alive now: a run is added when it starts and deleted when its result is ready. */
export class LiveRuns {
  private readonly runs = new Set<LiveRun>();

  add(run: LiveRun): void {
    this.runs.add(run);
  }

  delete(run: LiveRun): void {
    this.runs.delete(run);
  }

  /** Kills every live run's group and the processes with its marker; their results follow as "stopped". */
  async killAll(): Promise<void> {
    const runs = [...this.runs];
    for (const run of runs) run.kill();
    await killMarked(runs.map((run) => run.marker));
  }
}

/** SIGKILL to every process whose environment holds one of the markers. Never rejects. */
export async function killMarked(markers: readonly string[]): Promise<void> {
  if (markers.length === 0) return;
  const needles = markers.map((marker) => Buffer.from(`${MARKER_VAR}=${marker}\0`));
  for (let scan = 0; scan < MAX_SCANS; scan++) {
    const found = await findMarked(needles);
    for (const pid of found) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone since it was read.
      }
    }
    if (found.length === 0) return;
  }
}

async function findMarked(needles: readonly Buffer[]): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir("/proc");
  } catch {
    return [];
  }
  const pids = names
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid)
    .sort((a, b) => a - b)
    .slice(-MAX_PIDS);
  // One at a time, into one buffer: a scan runs at the end of every command and must not crowd the daemon.
  const buffer = Buffer.alloc(MAX_ENVIRON_BYTES);
  const found: number[] = [];
  for (const pid of pids) {
    const environ = await readEnviron(pid, buffer);
    if (environ && needles.some((needle) => environ.includes(needle))) found.push(pid);
  }
  return found;
}

async function readEnviron(pid: number, buffer: Buffer): Promise<Buffer | undefined> {
  let file: FileHandle | undefined;
  try {
    file = await open(`/proc/${pid}/environ`, "r");
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } catch {
    // Gone, or another user's.
    return undefined;
  } finally {
    await file?.close().catch(() => undefined);
  }
}
