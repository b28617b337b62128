/**
 * cmd_run on the mock SDK: what runs at once, what waits for the user's approval (and what the user was
 * asked: the exact command line, bound to the program's file, its arguments and folder), what is refused with
 * the reason, the folder kept inside the workspace, a long command answered "still running" with its result
 * sent later, and the history.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ApprovalOutcome, ApprovalRequest } from "@homeagent/sdk";
import { createMockSDK } from "@homeagent/sdk/test";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { createCmdPlugin } from "./plugin.js";
import { CMD_SETTINGS } from "./settings.js";

async function start(
  opts: { settings?: Record<string, string>; approve?: (r: ApprovalRequest) => ApprovalOutcome } = {},
) {
  const dir = tempDir("ha-cmd-plugin-");
  const sdk = createMockSDK({ pluginName: "cmd", daemonDataDir: dir, settings: opts.settings, approve: opts.approve });
  const plugin = createCmdPlugin();
  await plugin.start(sdk);
  const run = (args: Record<string, unknown>) =>
    sdk.callTool("cmd_run", args, { channel: "cli", requestId: "req-1" }) as Promise<Record<string, unknown>>;
  return { sdk, dir, run, plugin, workspace: join(dir, "workspace") };
}

const refused = (pattern: RegExp) => (err: unknown) => {
  assert.equal((err as { code?: string }).code, "command_refused");
  assert.match((err as Error).message, pattern);
  return true;
};

test("`uname -a` runs at once, in a new empty folder that is gone afterwards; nothing is asked", async () => {
  const { run, sdk, dir } = await start();
  const r = await run({ command: "uname -a" });
  assert.equal(r.status, "ok");
  assert.equal(r.exitCode, 0);
  assert.match(String(r.stdout), /Linux/);
  assert.deepEqual(sdk.asked, []);
  const [entry] = (await sdk.callTool("cmd_history")) as Array<Record<string, unknown>>;
  assert.equal(entry.command, "uname -a");
  assert.equal(entry.status, "ok");
  assert.match(String(entry.allowedBy), /plugin.cmd.allow/);
  assert.equal(entry.workdir, "(a new empty folder)");
  const where = String((await run({ command: "pwd" })).stdout).trim();
  assert.match(where, /scratch\/run-/);
  assert.equal(where.startsWith(join(dir, "workspace")), false);
  await waitFor(() => readdirSync(join(sdk.dataDir, "scratch")).length === 0, "the run folders removed");
});

test("`ls /` asks, runs once approved, and the user is asked about exactly that command line", async () => {
  const { run, sdk } = await start({ approve: () => ({ approved: true, how: "once", by: "dashboard" }) });
  const r = await run({ command: "ls /" });
  assert.match(String(r.stdout), /\bbin\b/);
  assert.match(sdk.asked[0].question, /^run ls \/ {3}\(in a new empty folder\)$/);
  const subject = JSON.parse(String(sdk.asked[0].subject)) as { file: string; args: string[]; workdir: string };
  assert.match(subject.file, /^\/(usr\/)?bin\/ls$/, "bound to the program's file");
  assert.deepEqual(subject.args, ["/"]);
  assert.equal(subject.workdir, "");
  assert.deepEqual(sdk.asked[0].options, ["once", "always", "deny"], "away from the workspace: 'always' is offered");
});

test("refused without approval: denied, nobody to ask, and in allowlist mode without asking", async () => {
  const denied = await start({ approve: () => ({ approved: false, reason: "denied", by: "waiter" }) });
  await assert.rejects(denied.run({ command: "date -s 2020-01-01" }), refused(/approval was refused/));
  const nobody = await start();
  await assert.rejects(
    nobody.run({ command: "date -f /etc/passwd" }),
    refused(/names a path.*nobody is connected who could approve it/),
  );
  const allowlist = await start({ settings: { mode: "allowlist" } });
  await assert.rejects(allowlist.run({ command: "hostname x" }), refused(/add a pattern to plugin.cmd.allow/));
  assert.deepEqual(allowlist.sdk.asked, []);
  const off = await start({ settings: { mode: "off" } });
  await assert.rejects(off.run({ command: "uname" }), refused(/plugin.cmd.mode = off/));
  const [entry] = (await denied.sdk.callTool("cmd_history")) as Array<Record<string, unknown>>;
  assert.equal(entry.status, "denied");
});

test("in the workspace no pattern runs unasked and 'always' is not offered: its files could steer the program", async () => {
  const { run, sdk, workspace } = await start({ settings: { allow: "cat *\ngit status\nuname -a" } });
  writeFileSync(join(workspace, "report.txt"), "written by the model");
  const away = await run({ command: "cat report.txt" });
  assert.match(String(away.stderr), /No such file/, "away from the workspace it sees none of the model's files");
  assert.equal(sdk.asked.length, 0);
  await assert.rejects(
    run({ command: "git status", workdir: "." }),
    refused(/runs in the workspace.*nobody is connected/),
  );
  assert.deepEqual(sdk.asked[0].options, ["once", "deny"]);
  await assert.rejects(run({ command: "uname -a", workdir: "." }), refused(/runs in the workspace/));
});

test("'always' is not offered for a command that names HomeAgent's data folder", async () => {
  const { run, sdk, dir } = await start();
  for (const command of [
    `cat ${join(dir, "workspace", "Makefile")}`,
    `make -f${join(dir, "workspace", "Makefile")}`,
    `python3 --x=${join(dir, "credentials")}`,
    "cat ../../credentials",
  ]) {
    await assert.rejects(run({ command }), refused(/nobody is connected/), command);
    assert.deepEqual(sdk.asked.at(-1)?.options, ["once", "deny"], command);
  }
  await assert.rejects(run({ command: "date -s 2020-01-01" }), refused(/nobody is connected/));
  assert.deepEqual(sdk.asked.at(-1)?.options, ["once", "always", "deny"], "a system program naming no data path");
});

test("a refused command tells nothing of what exists: a path is looked at only once it may run", async () => {
  const off = await start({ settings: { mode: "off" } });
  await assert.rejects(off.run({ command: "/no/such/program" }), refused(/plugin.cmd.mode = off/));
  const nobody = await start();
  await assert.rejects(nobody.run({ command: "/no/such/program" }), refused(/nobody is connected/));
  const approved = await start({ approve: () => ({ approved: true, how: "once", by: "waiter" }) });
  await assert.rejects(approved.run({ command: "/no/such/program" }), /not an executable file/);
});

test("plugin.cmd.allow refuses shell syntax when it is written (the daemon checks every write against this form)", () => {
  const def = CMD_SETTINGS.find((d) => d.key === "allow");
  const form = new RegExp(`^(?:${def?.pattern})$`, "u");
  assert.equal(form.test(String(def?.default)), true);
  for (const bad of ["ls | wc -l", "cat a > b", "echo $HOME", "true && x", "echo `id`"]) {
    assert.equal(form.test(bad), false, bad);
  }
});

test("a program outside the fixed PATH asks first; the environment has no HOMEAGENT_ variable", async () => {
  process.env.HOMEAGENT_TEST_SECRET = "s3cret";
  try {
    const { run, sdk } = await start({ approve: () => ({ approved: true, how: "once", by: "waiter" }) });
    const r = await run({ command: "/usr/bin/env" });
    assert.equal(sdk.asked.length, 1, "a full path is outside the fixed PATH: asked");
    assert.doesNotMatch(String(r.stdout), /HOMEAGENT_/);
    assert.match(String(r.stdout), /^PATH=\/usr\/local\/bin:\/usr\/bin:\/bin$/m);
  } finally {
    delete process.env.HOMEAGENT_TEST_SECRET;
  }
});

test("the folder stays inside the workspace: .., an absolute path and a symlink out are refused", async () => {
  const { run, workspace } = await start({ approve: () => ({ approved: true, how: "once", by: "waiter" }) });
  mkdirSync(join(workspace, "notes"));
  assert.equal((await run({ command: "pwd", workdir: "notes" })).stdout, `${join(workspace, "notes")}\n`);
  symlinkSync("/etc", join(workspace, "etc-link"));
  for (const workdir of ["..", "/etc", "etc-link", "notes/../.."]) {
    await assert.rejects(
      run({ command: "pwd", workdir }),
      (err: unknown) => (err as { code?: string }).code === "path_denied",
      workdir,
    );
  }
});

test("a command still running after background_after answers 'still running' and its result is sent later", async () => {
  const { run, sdk } = await start({
    settings: { background_after: "300ms" },
    approve: () => ({ approved: true, how: "once", by: "waiter" }),
  });
  const r = await run({ command: "sleep 0.6" });
  assert.equal(r.status, "running");
  assert.match(String(r.note), /still running after 300 ms; its result will be sent/);
  await waitFor(() => sdk.sent.length === 1, "the result", { timeoutMs: 10_000 });
  assert.equal(sdk.sent[0].channel, "cli");
  assert.equal(sdk.sent[0].kind, "result");
  assert.match(sdk.sent[0].text, /^Command \d+ \(sleep 0.6\) ended:\nstatus ok, exit code 0/);
});

test("stopping the plugin kills a command running in the background, and its result is not sent", async () => {
  const { run, sdk, plugin } = await start({
    settings: { background_after: "200ms" },
    approve: () => ({ approved: true, how: "once", by: "waiter" }),
  });
  assert.equal((await run({ command: "sleep 30" })).status, "running");
  await plugin.stop();
  await waitFor(
    async () => ((await sdk.callTool("cmd_history")) as Array<{ status: string }>)[0].status === "stopped",
    "the command killed",
    { timeoutMs: 5_000 },
  );
  assert.deepEqual(sdk.sent, []);
});

test("forgetting removes the command lines that mention the text from the history", async () => {
  const { run, sdk } = await start();
  await run({ command: "date +secret-4711" });
  await run({ command: "uptime" });
  const forget = sdk.forgetHandler;
  assert.ok(forget);
  assert.deepEqual((await forget({ terms: ["secret-4711"], confirm: true })).counts, { commands: 1 });
  const left = (await sdk.callTool("cmd_history")) as Array<{ command: string }>;
  assert.deepEqual(
    left.map((e) => e.command),
    ["uptime"],
  );
});
