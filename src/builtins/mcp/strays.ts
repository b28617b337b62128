/**
 * What a stdio server leaves behind. Servers are often started through a wrapper (`npx`, `uvx`, `sh -c`,
 * `docker run`) whose own child does the work; closing the connection ends the wrapper, not always its
 * child. Every process started for one connection carries a marker in its environment (its children inherit
 * it, even those that start a session of their own), and whatever still carries it once the connection is
 * closed is killed.
 */
import { readdir, readFile } from "node:fs/promises";

export const MARKER_VARIABLE = "HA_MCP_SERVER";

/** Kills every process of this user whose environment holds `marker`; resolves with how many. */
export async function killMarked(marker: string): Promise<number> {
  const needle = Buffer.from(`${MARKER_VARIABLE}=${marker}\0`);
  let killed = 0;
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: Buffer;
    try {
      environ = await readFile(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    if (!environ.includes(needle)) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
      killed++;
    } catch {
      // Gone already.
    }
  }
  return killed;
}
