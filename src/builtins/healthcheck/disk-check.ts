/**
 * Room left on the disk of the data directory: memory, transcripts and uploads all grow there, and SQLite
 * fails writes (the turn's memory among them) when it is full.
 */
import { statfs } from "node:fs/promises";
import { type Check, fail, ok, warn } from "./check.js";

const MIB = 1024 * 1024;
const FAIL_BELOW = 100 * MIB;
const WARN_BELOW = 1024 * MIB;
const WARN_BELOW_SHARE = 0.05;

export async function diskCheck(dir: string): Promise<Check> {
  const s = await statfs(dir);
  return diskVerdict(dir, s.bavail * s.bsize, s.blocks * s.bsize);
}

/** The verdict for `free` of `total` bytes. */
export function diskVerdict(dir: string, free: number, total: number): Check {
  const share = total > 0 ? free / total : 0;
  const detail = `${formatMib(free)} free of ${formatMib(total)} (${(share * 100).toFixed(1)} %) on the disk of ${dir}`;
  const fix = "free some space on that disk, or move the data directory (homed --data) to a larger one";
  if (free < FAIL_BELOW) return fail("disk", detail, fix);
  if (free < WARN_BELOW || share < WARN_BELOW_SHARE) return warn("disk", detail, fix);
  return ok("disk", detail);
}

function formatMib(bytes: number): string {
  return bytes >= 1024 * MIB ? `${(bytes / (1024 * MIB)).toFixed(1)} GiB` : `${Math.round(bytes / MIB)} MiB`;
}
