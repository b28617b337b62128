/**
 * Runs one program without a shell, in its own process group, with the output of each stream capped (the
 * cut said) and a deadline: at the deadline, or when the turn is stopped, the whole group gets SIGTERM and,
 * a moment later, SIGKILL — so a grandchild that ignores SIGTERM dies too. When the program exits, what it
 * left in its group is killed, and so is what left the group (setsid) but still carries the run's marker
 * (live-runs.ts); a process that escaped both and holds the output pipes open cannot hold up the result:
 * after a short grace the pipes are closed and the result says its output may be incomplete. A run is in
 * the plugin's LiveRuns while it lives, so stopping the plugin kills it. The environment is the daemon's
 * without its own variables (keys, passwords), with the fixed PATH and the marker.
 */
import { spawn } from "node:child_process";
import { killMarked, type LiveRun, type LiveRuns, MARKER_VAR, newMarker } from "./live-runs.js";
import { FIXED_PATH } from "./program.js";

/** Between SIGTERM and SIGKILL of the group. */
const KILL_GRACE_MS = 1_000;
/** Pipes still open this long after the program exits are held by a process that escaped: they are closed. */
const PIPE_GRACE_MS = 500;
const HELD_OPEN =
  "… [after it ended, a process it started still held its output open (and may still be running); the output may be incomplete]";

export interface RunOptions {
  file: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Ends the run early (the turn was stopped). */
  signal?: AbortSignal;
  /** Holds the run while it lives, for the plugin's stop to kill. */
  runs?: LiveRuns;
}

export interface RunResult {
  status: "ok" | "timeout" | "stopped" | "error";
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Why it could not start (status "error"). */
  error?: string;
}

class Capped {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const room = this.max - this.kept;
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(part);
      this.kept += part.length;
    }
    this.dropped += Math.max(0, chunk.length - Math.max(room, 0));
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString("utf8");
    return this.dropped > 0
      ? `${text}\n… [cut: ${this.dropped} more bytes; the limit is plugin.cmd.max_output_bytes]`
      : text;
  }
}

/** The daemon's environment without HOMEAGENT_* and with the fixed PATH. */
export function commandEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept = Object.entries(env).filter(([key]) => !key.startsWith("HOMEAGENT_") && key !== "PATH");
  return { ...Object.fromEntries(kept), PATH: FIXED_PATH.join(":") };
}

export function runProgram(opts: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const stdout = new Capped(opts.maxOutputBytes);
  const stderr = new Capped(opts.maxOutputBytes);
  const marker = newMarker();
  return new Promise((resolve) => {
    let ended: RunResult["status"] = "ok";
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(opts.file, opts.args, {
        cwd: opts.cwd,
        env: markedEnv(marker),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
    } catch (err) {
      // Refused before it started: an error result, never a throw the caller would miss.
      const error = (err as Error).message;
      resolve({ status: "error", exitCode: null, signal: null, stdout: "", stderr: "", durationMs: 0, error });
      return;
    }
    let exited = false;
    let killTimer: NodeJS.Timeout | undefined;
    let pipeTimer: NodeJS.Timeout | undefined;
    const killGroup = (why: RunResult["status"]) => {
      if (ended !== "ok" || exited || child.pid === undefined) return;
      ended = why;
      signalGroup(child.pid, "SIGTERM");
      const pid = child.pid;
      killTimer = setTimeout(() => signalGroup(pid, "SIGKILL"), KILL_GRACE_MS);
    };
    const deadline = setTimeout(() => killGroup("timeout"), opts.timeoutMs);
    const onAbort = () => killGroup("stopped");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const live: LiveRun = {
      marker,
      kill: () => {
        // Once it has exited its group is dead already (and its pgid could in time be another's).
        if (exited || child.pid === undefined) return;
        if (ended === "ok") ended = "stopped";
        signalGroup(child.pid, "SIGKILL");
      },
    };
    opts.runs?.add(live);
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    let done = false;
    const finish = (result: Omit<RunResult, "stdout" | "stderr" | "durationMs">, heldOpen = false) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(killTimer);
      clearTimeout(pipeTimer);
      opts.signal?.removeEventListener("abort", onAbort);
      opts.runs?.delete(live);
      resolve({
        ...result,
        stdout: stdout.text(),
        stderr: heldOpen ? [stderr.text(), HELD_OPEN].filter(Boolean).join("\n") : stderr.text(),
        durationMs: Math.round(performance.now() - started),
      });
    };
    // A one-shot command leaves nothing running: what it started goes when it exits (and its pipes close
    // with them, so the result is not held up by a grandchild).
    child.once("exit", (code, signal) => {
      exited = true;
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
      void killMarked([marker]);
      pipeTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish({ status: ended, exitCode: code, signal }, true);
      }, PIPE_GRACE_MS);
    });
    child.once("error", (err) => finish({ status: "error", exitCode: null, signal: null, error: err.message }));
    child.once("close", (code, signal) => finish({ status: ended, exitCode: code, signal }));
  });
}

/** commandEnv with the run's marker, first so that the capped read of a process's environment sees it. */
function markedEnv(marker: string): NodeJS.ProcessEnv {
  // The daemon may itself run under a marker (started by a command): that one is not passed on.
  const { [MARKER_VAR]: _, ...env } = commandEnv();
  return { [MARKER_VAR]: marker, ...env };
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}
