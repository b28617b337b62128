/**
 * What a subprocess plugin's log lines may cost the daemon's log: each core.log message is cut to a few
 * KiB, and its core.log messages and stderr lines together pass a token bucket, so a plugin printing in a
 * loop cannot flood the log (or the disk under it). Lines over the rate are dropped and counted; once the
 * flood is over, one line says how many were suppressed (a long flood is summed up every minute as well).
 */
import type { Logger } from "@homeagent/sdk";

/** Characters of one core.log message; the rest is cut and counted. */
export const LOG_MESSAGE_CHARS = 4096;
/** Lines per second a plugin may log (core.log and stderr together), on average … */
export const LOG_LINES_PER_SECOND = 100;
/** … and at once, after a quiet spell. */
export const LOG_BURST_LINES = 200;
/** A flood is over after this long without a suppressed line. */
const QUIET_MS = 1000;
/** During a flood that goes on, the count so far is logged this often. */
const SUMMARY_EVERY_MS = 60_000;

export interface LogRateOptions {
  perSecond?: number;
  burst?: number;
  quietMs?: number;
  /** The line that sums up `n` suppressed lines; default names the plugin and the rate. */
  summary?: (n: number) => string;
}

export class LogRate {
  private readonly perSecond: number;
  private readonly burst: number;
  private readonly quietMs: number;
  private readonly summary: (n: number) => string;
  private tokens: number;
  private refilled = Date.now();
  private suppressed = 0;
  private lastDrop = 0;
  private lastSummary = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    plugin: string,
    private readonly log: Logger,
    opts: LogRateOptions = {},
  ) {
    this.perSecond = opts.perSecond ?? LOG_LINES_PER_SECOND;
    this.burst = opts.burst ?? LOG_BURST_LINES;
    this.quietMs = opts.quietMs ?? QUIET_MS;
    this.summary =
      opts.summary ??
      ((n) =>
        `${n} lines from plugin "${plugin}" suppressed: it logged more than ${this.perSecond} lines/s (core.log and stderr together)`);
    this.tokens = this.burst;
  }

  /** Whether one more line may be logged now; false = it is dropped (and counted). */
  admit(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilled) * this.perSecond) / 1000);
    this.refilled = now;
    if (this.tokens >= 1) {
      this.tokens--;
      return true;
    }
    this.suppressed++;
    this.lastDrop = now;
    if (!this.timer) {
      this.lastSummary = now;
      this.timer = setInterval(() => this.tick(), this.quietMs);
      this.timer.unref();
    }
    return false;
  }

  /** The plugin is gone: a flood it ended with is summed up now. */
  close(): void {
    this.stopTimer();
    this.summarize();
  }

  private tick(): void {
    const now = Date.now();
    if (now - this.lastDrop >= this.quietMs) {
      this.stopTimer();
      this.summarize();
    } else if (now - this.lastSummary >= SUMMARY_EVERY_MS) {
      this.lastSummary = now;
      this.summarize();
    }
  }

  private summarize(): void {
    if (this.suppressed === 0) return;
    this.log.warn(this.summary(this.suppressed));
    this.suppressed = 0;
  }

  private stopTimer(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** `text` cut to LOG_MESSAGE_CHARS, saying how much was cut. */
export function clipLogMessage(text: string): string {
  if (text.length <= LOG_MESSAGE_CHARS) return text;
  return `${text.slice(0, LOG_MESSAGE_CHARS)}… [${text.length - LOG_MESSAGE_CHARS} more characters]`;
}
