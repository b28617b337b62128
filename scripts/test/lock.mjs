// One test command at a time uses .build/test: a second one's compile would rewrite files the first is
// loading. The lock file names its holder; a lock whose holder is gone (or is no longer a test command: its
// pid was reused) is taken over, atomically, so two commands finding the same stale lock cannot both win.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** Takes `lock` for this process, or exits with a message naming the holder. */
export function holdLock(lock, what) {
  mkdirSync(dirname(lock), { recursive: true });
  for (let tries = 0; tries < 3; tries++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: "wx" });
      return;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      const holder = Number(readFileSync(lock, "utf8"));
      if (holder && holder !== process.pid && isTestCommand(holder)) {
        console.error(`another test command (pid ${holder}) is using ${what}: wait for it to end, or stop it`);
        process.exit(1);
      }
      const mine = `${lock}.${process.pid}`;
      writeFileSync(mine, String(process.pid));
      renameSync(mine, lock);
      if (Number(readFileSync(lock, "utf8")) === process.pid) return;
    }
  }
  console.error(`could not take ${lock}: another test command keeps taking it`);
  process.exit(1);
}

/** Removes `lock` if this process holds it. */
export function releaseLock(lock) {
  try {
    if (Number(readFileSync(lock, "utf8")) === process.pid) rmSync(lock, { force: true });
  } catch {
    // Already gone.
  }
}

function isTestCommand(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code !== "EPERM") return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("scripts/test.mjs");
  } catch {
    // No /proc (macOS): a live process of that pid is taken for the holder.
    return true;
  }
}
