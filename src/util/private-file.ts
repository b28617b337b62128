/**
 * Writing a file that must never be seen half-written or by another user: the text goes to a temporary file
 * beside the target, created 0600 from its first byte and flushed to disk, which is then renamed over the
 * target. A reader (or a crash) sees the old file or the new one, never a mix.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";

export function writePrivateFile(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", 0o600);
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
