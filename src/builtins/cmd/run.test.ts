/**
 * Running a program: output cut at its limit with the cut said, and a deadline that kills the whole process
 * group — a grandchild that ignores SIGTERM included — and an environment without the daemon's variables.
 * A descendant that left the group (setsid) is killed by the run's marker, one that escaped the marker too
 * cannot hold up the result, and the plugin's stop kills every live run.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { LiveRuns } from "./live-runs.js";
import { commandEnv, runProgram } from "./run.js";

const sh = (
  script: string,
  opts: { timeoutMs?: number; maxOutputBytes?: number; cwd?: string; runs?: LiveRuns } = {},
) =>
  runProgram({
    file: "/bin/sh",
    args: ["-c", script],
    cwd: opts.cwd ?? tempDir("ha-cmd-"),
    timeoutMs: opts.timeoutMs ?? 10_000,
    maxOutputBytes: opts.maxOutputBytes ?? 32_000,
    runs: opts.runs,
  });

/** A test that would hang on a result that never comes fails instead. */
const HANG = { timeout: 15_000 };

/**
 * Shell text that starts `command` in a new session (out of the run's group), holding the run's output
 * pipes, with its pid in `pidfile` — and waits until it is there, so it has left the group before the
 * script goes on.
 */
const escaped = (pidfile: string, command = "") =>
  `setsid ${command} sh -c 'echo $$ > ${pidfile}.tmp && mv ${pidfile}.tmp ${pidfile}; exec sleep 1000' & ` +
  `while [ ! -e ${pidfile} ]; do sleep 0.01; done; `;

const pidIn = (file: string) => Number(readFileSync(file, "utf8"));

/**
 * Whether `pid` still runs. A killed process stays a zombie until its parent (here often PID 1, which reaps
 * slowly in a container) collects it; a zombie runs nothing, so it counts as dead.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

test("stdout and stderr are kept apart, each cut at the limit with the cut said", async () => {
  const r = await sh("head -c 5000 /dev/zero | tr '\\0' a; echo oops >&2; exit 3", { maxOutputBytes: 1000 });
  assert.equal(r.status, "ok");
  assert.equal(r.exitCode, 3);
  assert.match(r.stdout, /^a{1000}\n… \[cut: 4000 more bytes; the limit is plugin.cmd.max_output_bytes\]$/);
  assert.equal(r.stderr, "oops\n");
});

test("at the deadline the whole group dies, a grandchild that ignores SIGTERM included", async () => {
  const dir = tempDir("ha-cmd-");
  const r = await sh(`(trap '' TERM; sleep 60) & echo $! > ${join(dir, "grandchild")}; trap '' TERM; sleep 60`, {
    timeoutMs: 300,
    cwd: dir,
  });
  assert.equal(r.status, "timeout");
  const grandchild = Number(readFileSync(join(dir, "grandchild"), "utf8"));
  await waitFor(() => !alive(grandchild), "the grandchild to die");
});

test("what a command started in its group does not outlive it", async () => {
  const dir = tempDir("ha-cmd-");
  const r = await sh(`sleep 60 & echo $! > ${join(dir, "left")}; echo done`, { cwd: dir });
  assert.equal(r.stdout, "done\n");
  const left = Number(readFileSync(join(dir, "left"), "utf8"));
  await waitFor(() => !alive(left), "the process it left behind to die");
});

test("the environment has no HOMEAGENT_ variable and the fixed PATH", () => {
  const env = commandEnv({
    HOME: "/home/me",
    PATH: "/home/me/bin:/usr/bin",
    HOMEAGENT_API_KEY: "k",
    HOMEAGENT_LLM_API_KEY: "s",
  });
  assert.deepEqual(env, { HOME: "/home/me", PATH: "/usr/local/bin:/usr/bin:/bin" });
});

test("a program that cannot start is an error, not a crash", async () => {
  const r = await runProgram({ file: "/nonexistent/prog", args: [], cwd: "/", timeoutMs: 1000, maxOutputBytes: 100 });
  assert.equal(r.status, "error");
  assert.match(String(r.error), /ENOENT/);
});

test("a grandchild that left the group and holds the output is killed, and the result comes", HANG, async () => {
  const dir = tempDir("ha-cmd-");
  const pidfile = join(dir, "escaped");
  const r = await sh(`${escaped(pidfile)}echo done`, { cwd: dir });
  assert.equal(r.status, "ok");
  assert.equal(r.stdout, "done\n");
  assert.ok(r.durationMs < 3_000, `${r.durationMs} ms`);
  await waitFor(() => !alive(pidIn(pidfile)), "the escaped grandchild to die");
});

test("at the deadline a grandchild that left the group dies too, and the result comes", HANG, async () => {
  const dir = tempDir("ha-cmd-");
  const pidfile = join(dir, "escaped");
  const r = await sh(`${escaped(pidfile)}sleep 60`, { cwd: dir, timeoutMs: 300 });
  assert.equal(r.status, "timeout");
  assert.ok(r.durationMs < 3_000, `${r.durationMs} ms`);
  await waitFor(() => !alive(pidIn(pidfile)), "the escaped grandchild to die");
});

test("a process that escaped the marker too does not hold up the result, which says so", HANG, async (t) => {
  const dir = tempDir("ha-cmd-");
  const pidfile = join(dir, "escaped");
  // env -i: a fresh environment, without the marker — the case the scan cannot catch.
  const run = sh(`${escaped(pidfile, "env -i PATH=/usr/bin:/bin")}echo done`, { cwd: dir });
  t.after(() => {
    if (existsSync(pidfile)) process.kill(pidIn(pidfile), "SIGKILL");
  });
  const r = await run;
  assert.equal(r.status, "ok");
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout, "done\n");
  assert.match(r.stderr, /still held its output open .*the output may be incomplete/);
  assert.ok(r.durationMs < 3_000, `${r.durationMs} ms`);
});

test("killAll kills every live run: its group and what left the group", HANG, async () => {
  const dir = tempDir("ha-cmd-");
  const runs = new LiveRuns();
  const pidfile = join(dir, "escaped");
  const grandchild = join(dir, "grandchild");
  const child = join(dir, "child");
  const run = sh(
    `sleep 60 & echo $! > ${grandchild}; ${escaped(pidfile)}echo $$ > ${child}.tmp && mv ${child}.tmp ${child}; sleep 60`,
    { cwd: dir, runs },
  );
  await waitFor(() => existsSync(child), "the command to start");
  const pids = [pidIn(child), pidIn(grandchild), pidIn(pidfile)];
  await runs.killAll();
  const r = await run;
  assert.equal(r.status, "stopped");
  assert.equal(r.signal, "SIGKILL");
  for (const pid of pids) await waitFor(() => !alive(pid), `process ${pid} to die`);
});
