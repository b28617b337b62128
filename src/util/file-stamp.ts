/**
 * A cheap "has this file changed?" stamp: size, times and inode together, so an edit, a rewrite through a
 * temporary file and a replacement all change it, without reading the file.
 */
import { statSync } from "node:fs";

export function fileStamp(path: string): string | undefined {
  try {
    const s = statSync(path);
    return `${s.mtimeMs}:${s.ctimeMs}:${s.size}:${s.ino}`;
  } catch {
    return undefined;
  }
}
