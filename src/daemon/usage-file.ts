/**
 * Keeps the usage meter (src/llm/usage-meter.ts) in `usage.json` in the data dir, so that a restart at noon
 * does not zero the day. Written whole (atomically, 0600) at most once per USAGE_WRITE_DELAY_MS after a
 * change and once more on close; a file that cannot be read is reported and ignored — it never stops the daemon from
 * starting — and replaced at the next write.
 */

import { readFileSync, statSync } from "node:fs";
import type { Logger } from "@homeagent/sdk";
import { UsageMeter } from "../llm/usage-meter.js";
import { type Clock, systemClock } from "../util/clock.js";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { writePrivateFile } from "../util/private-file.js";

export const USAGE_WRITE_DELAY_MS = 5000;
/** Far above what the meter's bounds can write (~100 KB); a bigger file is not ours. */
const MAX_FILE_BYTES = 1024 * 1024;

export interface UsageFileOptions {
  file: string;
  zone: () => string;
  log: Logger;
  clock?: Clock;
}

export interface MeteredUsage {
  meter: UsageMeter;
  /** Writes what is pending now; later changes are no longer written. */
  close(): void;
}

export function openUsageFile(opts: UsageFileOptions): MeteredUsage {
  const { file, log } = opts;
  const clock = opts.clock ?? systemClock;
  let timer: unknown;
  let closed = false;
  const write = () => {
    timer = undefined;
    try {
      writePrivateFile(file, JSON.stringify(meter.toJSON()));
    } catch (err) {
      log.warn(`writing today's LLM usage to ${file} failed (figures kept in memory): ${errorMessage(err)}`);
    }
  };
  const meter = new UsageMeter({
    zone: opts.zone,
    now: () => clock.now(),
    onChange: () => {
      if (!closed && timer === undefined) timer = clock.setTimer(write, USAGE_WRITE_DELAY_MS);
    },
  });
  load(meter, file, log);
  return {
    meter,
    close: () => {
      if (closed) return;
      closed = true;
      if (timer === undefined) return;
      clock.clearTimer(timer);
      write();
    },
  };
}

function load(meter: UsageMeter, file: string, log: Logger): void {
  try {
    const size = statSync(file).size;
    if (size > MAX_FILE_BYTES) {
      throw new HomeAgentError({
        code: "usage_file_invalid",
        message: `${size} bytes, more than the ${MAX_FILE_BYTES} it can be`,
      });
    }
    meter.restore(JSON.parse(readFileSync(file, "utf8")));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    log.warn(
      `today's LLM usage could not be read from ${file} (${errorMessage(err)}); the figures start from zero and the file is replaced at the next write`,
    );
  }
}
