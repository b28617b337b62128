/**
 * `<daemon data>/workspace/uploads/`: where chat/file puts what the user uploads (the agent's file tools
 * see it as `uploads/<name>`). Bounded three ways: one file (maxUploadBytes), the whole folder (the quota,
 * counted as bytes arrive, files being written included) and the uploads running at once. A file is
 * written under a hidden temporary name (mode 0600) and gets its real name only when complete, so a
 * half-received upload is never served and never overwrites another.
 */
import { randomBytes } from "node:crypto";
import { type FileHandle, lstat, mkdir, open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { SdkError } from "@homeagent/sdk";
import { ApiError, type WebLimits } from "./context.js";
import type { FileSink } from "./multipart.js";
import { numberedName } from "./upload-names.js";

export const MAX_CONCURRENT_UPLOADS = 2;
const TEMP_PREFIX = ".part-";
const MAX_NAME_TRIES = 1000;

export function uploadsDir(daemonDataDir: string): string {
  return join(daemonDataDir, "workspace", "uploads");
}

/** One upload in progress: its temporary file, and what it has added to the folder so far. */
export interface UploadSlot {
  /** Opens the temporary file the bytes go to. */
  open(): Promise<FileSink>;
  /** Gives the complete file its final name (`name`, or `name-1`, … when taken); returns that name. */
  commit(name: string): Promise<string>;
  /** Removes the temporary file (if any) and frees the slot; safe to call after commit too. */
  release(): Promise<void>;
}

export class UploadStore {
  private active = 0;
  /** Bytes written by uploads in progress (not yet in a final file). */
  private inFlight = 0;
  private ready: Promise<void> | null = null;

  constructor(
    readonly dir: string,
    private readonly limits: WebLimits,
  ) {}

  /**
   * A slot for one upload of about `declaredBytes`: 429 upload_busy when uploads are already running at
   * the limit, 413 upload_quota when the folder has no room for it.
   */
  async acquire(declaredBytes: number): Promise<UploadSlot> {
    if (this.active >= MAX_CONCURRENT_UPLOADS) {
      throw new ApiError(
        429,
        "upload_busy",
        `${MAX_CONCURRENT_UPLOADS} uploads are already running; send this one when they are done`,
        { retryAfterS: 2 },
      );
    }
    this.active += 1;
    try {
      await this.prepare();
      const used = await this.usage();
      this.checkQuota(used + this.inFlight + declaredBytes);
      return this.slot(used);
    } catch (err) {
      this.active -= 1;
      throw err;
    }
  }

  /** Bytes of every file in the folder now. */
  async usage(): Promise<number> {
    let total = 0;
    for (const entry of await readdir(this.dir)) {
      const st = await lstat(join(this.dir, entry)).catch(() => null);
      if (st?.isFile()) total += st.size;
    }
    return total;
  }

  private slot(usedAtStart: number): UploadSlot {
    let handle: FileHandle | null = null;
    let temp: string | null = null;
    let written = 0;
    let released = false;
    const store = this;
    return {
      async open() {
        temp = join(store.dir, `${TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
        handle = await open(temp, "wx", 0o600);
        return {
          write: async (chunk) => {
            written += chunk.length;
            store.inFlight += chunk.length;
            store.checkQuota(usedAtStart + store.inFlight);
            await (handle as FileHandle).write(chunk);
          },
        };
      },
      async commit(name) {
        if (!handle || !temp) throw new SdkError({ code: "internal_error", message: "commit before open" });
        await handle.close();
        handle = null;
        const final = await store.claim(name);
        await rename(temp, join(store.dir, final));
        temp = null;
        return final;
      },
      async release() {
        if (released) return;
        released = true;
        store.active -= 1;
        store.inFlight -= written;
        await handle?.close().catch(() => {});
        if (temp) await unlink(temp).catch(() => {});
      },
    };
  }

  /**
   * Reserves the first free name (an empty placeholder made with O_EXCL, which the rename then replaces),
   * so two uploads of the same name can never land on one file.
   */
  private async claim(name: string): Promise<string> {
    for (let n = 0; n < MAX_NAME_TRIES; n += 1) {
      const candidate = numberedName(name, n);
      try {
        await (await open(join(this.dir, candidate), "wx", 0o600)).close();
        return candidate;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
    }
    throw new ApiError(409, "upload_name_taken", `${MAX_NAME_TRIES} files named like ${name} exist; rename the file`);
  }

  private checkQuota(bytes: number): void {
    if (bytes <= this.limits.uploadQuotaBytes) return;
    const mb = Math.round(this.limits.uploadQuotaBytes / (1024 * 1024));
    throw new ApiError(
      413,
      "upload_quota",
      `the uploads folder would go over its quota of ${mb} MB (plugin.webui.upload_quota_mb); delete old files from ${this.dir} or raise the quota`,
    );
  }

  /** Creates the folder (0700) and removes temporary files a crash left behind, once. */
  private prepare(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      for (const entry of await readdir(this.dir)) {
        if (entry.startsWith(TEMP_PREFIX)) await unlink(join(this.dir, entry)).catch(() => {});
      }
    })().catch((err) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }
}
