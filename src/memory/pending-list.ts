/**
 * Work that must survive a crash, kept as a small list in a private JSON file beside memory.db: the
 * databases a scrub still has to rewrite, the inputs a forget still has to remove. An empty list is no file;
 * a file that does not hold a list of the expected items is worthless and reported, then replaced.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import type { Logger } from "@homeagent/sdk";
import { errorMessage } from "../util/errors.js";
import { writePrivateFile } from "../util/private-file.js";

export class PendingList<T> {
  constructor(
    private readonly file: string,
    private readonly isItem: (value: unknown) => value is T,
    private readonly log: Logger,
  ) {}

  read(): T[] {
    if (!existsSync(this.file)) return [];
    try {
      const list: unknown = JSON.parse(readFileSync(this.file, "utf8"));
      if (Array.isArray(list) && list.every(this.isItem)) return list;
    } catch {
      // Reported below, like a list of something else.
    }
    this.log.warn(`memory: ${this.file} does not hold what it should; ignoring it`);
    return [];
  }

  /** A failure to write is logged: the work itself goes on, only its record after a crash is lost. */
  write(items: readonly T[]): void {
    try {
      if (items.length === 0) rmSync(this.file, { force: true });
      else writePrivateFile(this.file, JSON.stringify(items));
    } catch (err) {
      this.log.warn(`memory: cannot write ${this.file}: ${errorMessage(err)}`);
    }
  }
}
