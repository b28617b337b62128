/**
 * Leftovers of an earlier daemon: processes of our user whose environment names this data directory in
 * HOMEAGENT_PLUGIN_DATA are killed; those of another data directory, or without it, are left alone. And
 * leftovers of one plugin run: only what carries that run's HOMEAGENT_PLUGIN_RUN, in any session.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { test } from "node:test";
import { processAlive } from "../../../test/fixtures/proc-plugins.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { killOrphans, killPluginTree } from "./orphans.js";
import { PLUGIN_DAEMON_ENV, PLUGIN_DATA_ENV, PLUGIN_RUN_ENV, processIdentity } from "./spawn.js";

const sleeper = (env: Record<string, string>, detached = false): ChildProcess =>
  spawn("sleep", ["1000"], { env: { ...process.env, ...env }, stdio: "ignore", detached });

test("only the processes carrying this data directory are killed", { skip: process.platform !== "linux" }, async () => {
  const mine = tempDir("ha-orphans-");
  const other = tempDir("ha-orphans-other-");
  const children = [
    sleeper({ [PLUGIN_DATA_ENV]: mine }),
    sleeper({ [PLUGIN_DATA_ENV]: `${mine}/` }),
    sleeper({ [PLUGIN_DATA_ENV]: other }),
    sleeper({ [PLUGIN_DATA_ENV]: `${mine}-2` }),
    sleeper({ OTHER: `${PLUGIN_DATA_ENV}=${mine}` }),
  ];
  try {
    const pids = children.map((c) => c.pid as number);
    await waitFor(() => pids.every(processAlive), "the children to run");
    const killed = await killOrphans(mine);
    assert.deepEqual(killed.sort(), [pids[0]], "only the exact entry (spawn writes the directory resolved)");
    await waitFor(() => !processAlive(pids[0]), "the leftover to die");
    assert.ok(pids.slice(1).every(processAlive), "the others live");
    assert.deepEqual(await killOrphans(mine), [], "nothing left");
  } finally {
    for (const c of children) c.kill("SIGKILL");
  }
});

test("processes whose daemon still runs are spared: a second homed on a data dir in use kills nothing", {
  skip: process.platform !== "linux",
}, async () => {
  const mine = tempDir("ha-orphans-live-");
  const daemon = sleeper({});
  await waitFor(() => processIdentity(daemon.pid as number) !== undefined, "the stand-in daemon to run");
  const live = processIdentity(daemon.pid as number) as string;
  const [spared, orphan] = [
    sleeper({ [PLUGIN_DATA_ENV]: mine, [PLUGIN_DAEMON_ENV]: live }),
    // Same pid, another start time: the pid was reused, that daemon is gone.
    sleeper({ [PLUGIN_DATA_ENV]: mine, [PLUGIN_DAEMON_ENV]: `${daemon.pid}:1` }),
  ];
  try {
    const pids = [spared.pid as number, orphan.pid as number];
    await waitFor(() => pids.every(processAlive), "the children to run");
    assert.deepEqual(await killOrphans(mine), [pids[1]]);
    assert.ok(processAlive(pids[0]), "the live daemon's plugin lives");
  } finally {
    for (const c of [daemon, spared, orphan]) c.kill("SIGKILL");
  }
});

test("a plugin run's tree: every process carrying its run id, in any session; nothing else", {
  skip: process.platform !== "linux",
}, async () => {
  const data = tempDir("ha-orphans-run-");
  const live = processIdentity(process.pid) as string;
  const shared = { [PLUGIN_DATA_ENV]: data, [PLUGIN_DAEMON_ENV]: live };
  const children = [
    sleeper({ ...shared, [PLUGIN_RUN_ENV]: "run-1" }, true),
    sleeper({ ...shared, [PLUGIN_RUN_ENV]: "run-1" }),
    sleeper({ ...shared, [PLUGIN_RUN_ENV]: "run-10" }, true),
    sleeper({ ...shared, [PLUGIN_RUN_ENV]: "run-2" }),
    sleeper(shared),
  ];
  try {
    const pids = children.map((c) => c.pid as number);
    await waitFor(() => pids.every(processAlive), "the children to run");
    assert.deepEqual((await killPluginTree("run-1")).sort(), pids.slice(0, 2).sort());
    await waitFor(() => pids.slice(0, 2).every((pid) => !processAlive(pid)), "run-1's processes to die");
    assert.ok(pids.slice(2).every(processAlive), "another run's, and the daemon's other plugins', live");
  } finally {
    for (const c of children) c.kill("SIGKILL");
  }
});
