/**
 * Where a command runs when it is not given a folder of the workspace: a fresh, empty folder of its own,
 * in the plugin's data folder (which the model's file tools never reach), removed when the command ends.
 * The model can write the workspace, and many programs follow files of the folder they run in (git its
 * `config`, make its `Makefile`, python its modules, node its scripts): a command that runs without the
 * user looking at it this time — by an allow pattern or an "always" — must not see anything the model wrote.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";

export class Scratch {
  readonly root: string;

  constructor(pluginDataDir: string) {
    this.root = join(pluginDataDir, "scratch");
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
  }

  /** A new empty folder for one run. */
  make(): string {
    return mkdtempSync(join(this.root, "run-"));
  }

  /** Removes a run's folder and whatever the command left in it; never throws. */
  async remove(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }

  /** Folders of runs a stop or crash of the daemon left behind. */
  async sweep(): Promise<void> {
    const left = await readdir(this.root).catch(() => [] as string[]);
    await Promise.all(left.map((name) => this.remove(join(this.root, name))));
  }
}
