/**
 * Protocol errors of one plugin (malformed lines, oversized frames, answers to nothing) go to the log with
 * the plugin's name — but a plugin printing garbage in a loop must not flood it, so each minute logs at
 * most a few and then one line saying how many more were left out.
 */
import type { Logger } from "@homeagent/sdk";

const PER_WINDOW = 20;
const WINDOW_MS = 60_000;

export class ProtocolLog {
  private windowStart = 0;
  private count = 0;
  private suppressed = 0;

  constructor(
    private readonly plugin: string,
    private readonly log: Logger,
  ) {}

  report(message: string): void {
    const now = Date.now();
    if (now - this.windowStart >= WINDOW_MS) {
      if (this.suppressed > 0) {
        this.log.warn(`plugin "${this.plugin}": ${this.suppressed} more protocol errors were not logged`);
      }
      this.windowStart = now;
      this.count = 0;
      this.suppressed = 0;
    }
    if (this.count >= PER_WINDOW) {
      this.suppressed++;
      return;
    }
    this.count++;
    this.log.warn(`plugin "${this.plugin}" protocol error: ${message}`);
  }
}
