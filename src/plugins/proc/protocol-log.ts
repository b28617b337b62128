/**
 * Protocol errors of one plugin (malformed lines, oversized frames, answers to nothing) go to the log with
 * the plugin's name — but a plugin printing garbage in a loop must not flood it, so a minute lets a few
 * through and one line then says how many more were left out (once they stop, or when the plugin exits).
 * The same bucket as the plugin's own log lines (LogRate), at a lower rate.
 */
import type { Logger } from "@homeagent/sdk";
import { LogRate } from "./log-rate.js";

const PER_WINDOW = 20;
const WINDOW_MS = 60_000;

export class ProtocolLog {
  private readonly rate: LogRate;

  constructor(
    private readonly plugin: string,
    private readonly log: Logger,
    windowMs = WINDOW_MS,
  ) {
    this.rate = new LogRate(plugin, log, {
      perSecond: (PER_WINDOW * 1000) / windowMs,
      burst: PER_WINDOW,
      quietMs: windowMs,
      summary: (n) => `plugin "${plugin}": ${n} more protocol errors were not logged`,
    });
  }

  report(message: string): void {
    if (this.rate.admit()) this.log.warn(`plugin "${this.plugin}" protocol error: ${message}`);
  }

  /** The plugin is gone: what was left out is summed up now. */
  close(): void {
    this.rate.close();
  }
}
