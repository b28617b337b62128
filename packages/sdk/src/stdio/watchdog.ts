/**
 * Parent-death watchdog: a plugin process must never outlive the daemon, even when the daemon was killed
 * with SIGKILL and the plugin's main thread is stuck in a loop (so it never sees stdin close). A worker
 * thread, which keeps running whatever the main thread does, polls the parent pid and SIGKILLs its own
 * process once the parent changed (the orphan was re-parented to init or a subreaper). Where the daemon
 * starts plugins through `setpriv --pdeathsig KILL` the kernel does this first; this covers the rest.
 */
import { Worker } from "node:worker_threads";

const POLL_MS = 250;

const SOURCE = `
const { workerData } = require("node:worker_threads");
setInterval(() => {
  if (process.ppid !== workerData.ppid) process.kill(workerData.pid, "SIGKILL");
}, workerData.pollMs);
`;

let running: Worker | undefined;

/** Starts the watchdog once per process; it never keeps the process alive by itself. */
export function startParentWatchdog(pollMs = POLL_MS): void {
  // The daemon started us with the kernel's parent-death signal: a thread (~70 ms of start) would add nothing.
  if (running || process.env.HOMEAGENT_PARENT_DEATH_SIGNAL === "KILL") return;
  running = new Worker(SOURCE, {
    eval: true,
    workerData: { ppid: process.ppid, pid: process.pid, pollMs },
    // The plugin's own flags (e.g. a TypeScript loader) only slow the worker's start.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
    // Its stdout must never reach the protocol stream.
    stdout: true,
  });
  running.unref();
  running.on("error", (err) => process.stderr.write(`parent watchdog stopped: ${err.message}\n`));
}
