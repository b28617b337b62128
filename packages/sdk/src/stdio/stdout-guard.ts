/**
 * A subprocess plugin's stdout carries protocol frames only: one stray `console.log` would be a malformed
 * line to the daemon. The console therefore writes to stderr, which the daemon logs under the plugin's
 * name. Writing to `process.stdout` directly is still possible, and still wrong.
 */
import { Console } from "node:console";

let guarded = false;

export function guardStdout(): void {
  if (guarded) return;
  guarded = true;
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
}
