/**
 * Protocol errors of one plugin (malformed lines, oversized frames, answers to nothing) go to the log with
 * the plugin's name — but a plugin printing garbage in a loop must not flood it, so each minute logs at
 * most a few and then one line saying how many more were left out: at the end of the minute (a flood that
 * stopped is summed up too), or when the plugin exits.
 */
import type { Logger } from "@homeagent/sdk";

const PER_WINDOW = 20;
const WINDOW_MS = 60_000;

export class ProtocolLog {
  private windowStart = 0;
  private count = 0;
  private suppressed = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly plugin: string,
    private readonly log: Logger,
    private readonly windowMs = WINDOW_MS,
  ) {}

  report(message: string): void {
    const now = Date.now();
    if (now - this.windowStart >= this.windowMs) {
      this.summarize();
      this.windowStart = now;
      this.count = 0;
    }
    if (this.count >= PER_WINDOW) {
      this.suppressed++;
      if (!this.timer) {
        this.timer = setTimeout(() => this.summarize(), this.windowStart + this.windowMs - now);
        this.timer.unref();
      }
      return;
    }
    this.count++;
    this.log.warn(`plugin "${this.plugin}" protocol error: ${message}`);
  }

  /** The plugin is gone: what was left out is summed up now. */
  close(): void {
    this.summarize();
  }

  private summarize(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.suppressed === 0) return;
    this.log.warn(`plugin "${this.plugin}": ${this.suppressed} more protocol errors were not logged`);
    this.suppressed = 0;
  }
}
