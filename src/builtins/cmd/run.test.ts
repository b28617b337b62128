/**
 * Running a program: output cut at its limit with the cut said, and a deadline that kills the whole process
 * group — a grandchild that ignores SIGTERM included — and an environment without the daemon's variables.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { commandEnv, runProgram } from "./run.js";

const sh = (script: string, opts: { timeoutMs?: number; maxOutputBytes?: number; cwd?: string } = {}) =>
  runProgram({
    file: "/bin/sh",
    args: ["-c", script],
    cwd: opts.cwd ?? tempDir("ha-cmd-"),
    timeoutMs: opts.timeoutMs ?? 10_000,
    maxOutputBytes: opts.maxOutputBytes ?? 32_000,
  });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
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
