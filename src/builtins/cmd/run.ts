/**
 * Runs one program without a shell, in its own process group, with the output of each stream capped (the
 * cut said) and a deadline: at the deadline, or when the turn is stopped, the whole group gets SIGTERM and,
 * a moment later, SIGKILL — so a grandchild that ignores SIGTERM dies too. The environment is the daemon's
 * without its own variables (keys, passwords) and with the fixed PATH.
 */
import { spawn } from "node:child_process";
import { FIXED_PATH } from "./program.js";

/** Between SIGTERM and SIGKILL of the group. */
const KILL_GRACE_MS = 1_000;

export interface RunOptions {
  file: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Ends the run early (the turn was stopped). */
  signal?: AbortSignal;
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
  return new Promise((resolve) => {
    let ended: RunResult["status"] = "ok";
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(opts.file, opts.args, {
        cwd: opts.cwd,
        env: commandEnv(),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
    } catch (err) {
      // Refused before it started: an error result, never a throw the caller would miss.
      const error = (err as Error).message;
      resolve({ status: "error", exitCode: null, signal: null, stdout: "", stderr: "", durationMs: 0, error });
      return;
    }
    let killTimer: NodeJS.Timeout | undefined;
    const killGroup = (why: RunResult["status"]) => {
      if (ended !== "ok" || child.pid === undefined) return;
      ended = why;
      signalGroup(child.pid, "SIGTERM");
      const pid = child.pid;
      killTimer = setTimeout(() => signalGroup(pid, "SIGKILL"), KILL_GRACE_MS);
    };
    const deadline = setTimeout(() => killGroup("timeout"), opts.timeoutMs);
    const onAbort = () => killGroup("stopped");
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
    const finish = (result: Omit<RunResult, "stdout" | "stderr" | "durationMs">) => {
      clearTimeout(deadline);
      opts.signal?.removeEventListener("abort", onAbort);
      clearTimeout(killTimer);
      resolve({
        ...result,
        stdout: stdout.text(),
        stderr: stderr.text(),
        durationMs: Math.round(performance.now() - started),
      });
    };
    // A one-shot command leaves nothing running: what it started in its group goes when it exits (and its
    // pipes close with them, so the result is not held up by a grandchild).
    child.once("exit", () => {
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
    });
    child.once("error", (err) => finish({ status: "error", exitCode: null, signal: null, error: err.message }));
    child.once("close", (code, signal) => finish({ status: ended, exitCode: code, signal }));
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}
