/**
 * How much the agent may put in the workspace: `plugin.files.max_workspace_mb` in all (a model looping on
 * files_write would otherwise fill the user's disk, 1 MB a call), and never so much that the disk keeps less
 * than 1 GB free — the databases need room to write. The workspace's size is measured by a bounded walk,
 * kept for a minute and moved by each write, so a write costs no walk.
 */
import { lstat, readdir, statfs } from "node:fs/promises";
import { join } from "node:path";
import { SdkError } from "@homeagent/sdk";

/** Free space a write must leave on the disk. */
const DISK_RESERVE_BYTES = 1024 * 1024 * 1024;
const MEASURE_FOR_MS = 60_000;
const MAX_ENTRIES = 200_000;

export class WorkspaceQuota {
  private used: number | undefined;
  private measuredAt = 0;

  constructor(
    private readonly workspace: string,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Refuses a write of `bytes` more that would take the workspace over `maxBytes` or the disk under its
   * reserve; else counts it.
   */
  async take(bytes: number, maxBytes: number): Promise<void> {
    const used = await this.size();
    if (used + bytes > maxBytes) {
      throw new SdkError({
        code: "too_large",
        message: `the workspace holds ${mb(used)} MB and may hold ${mb(maxBytes)} MB (plugin.files.max_workspace_mb); this write of ${bytes} bytes would go over. The user can remove files (dashboard, Workspace) or raise the limit in Settings`,
      });
    }
    const disk = await statfs(this.workspace);
    const free = disk.bavail * disk.bsize;
    if (free - bytes < DISK_RESERVE_BYTES) {
      throw new SdkError({
        code: "too_large",
        message: `the disk has ${mb(free)} MB free; a write that would leave less than ${mb(DISK_RESERVE_BYTES)} MB is refused. Free some space first`,
      });
    }
    this.used = used + bytes;
  }

  private async size(): Promise<number> {
    if (this.used !== undefined && this.now() - this.measuredAt < MEASURE_FOR_MS) return this.used;
    this.used = await measure(this.workspace);
    this.measuredAt = this.now();
    return this.used;
  }
}

/** What a folder takes on the disk however empty: folders cost too (a path of 60 of them is one write). */
const FOLDER_BYTES = 4_096;

/**
 * Bytes the entries under `folder` take on the disk (blocks, not lengths: a sparse file is counted for what
 * it holds), folders included, links not followed; at most MAX_ENTRIES of them counted.
 */
async function measure(folder: string): Promise<number> {
  let total = 0;
  let seen = 0;
  const stack = [folder];
  while (stack.length > 0 && seen < MAX_ENTRIES) {
    const dir = stack.pop() as string;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const d of entries) {
      if (++seen > MAX_ENTRIES) break;
      const full = join(dir, d.name);
      if (d.isDirectory()) {
        stack.push(full);
        total += FOLDER_BYTES;
      } else if (d.isFile()) total += ((await lstat(full).catch(() => undefined))?.blocks ?? 0) * 512;
    }
  }
  return total;
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
