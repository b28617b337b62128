/**
 * A rate limit on what the scripts of one LuaVM may log. The worker caps the lines of one call, but callers
 * make many calls (a stream makes one per batch of chunks), so without a bound over time one script could
 * write gigabytes of log. A token bucket per VM, for lines and for bytes: a burst is let through, then a
 * steady rate; what is over is dropped and counted, and one notice per script per window says how much.
 */
import type { LuaLogLevel } from "./worker-host.js";

export interface LogRate {
  /** Lines per second, over time. */
  linesPerSecond: number;
  /** Characters per second, over time. */
  bytesPerSecond: number;
  /** Lines let through at once after a quiet period. */
  burstLines: number;
  /** Characters let through at once after a quiet period. */
  burstBytes: number;
}

export const DEFAULT_LOG_RATE: LogRate = {
  linesPerSecond: 20,
  bytesPerSecond: 32 * 1024,
  burstLines: 200,
  burstBytes: 256 * 1024,
};

/** How often at most a notice of dropped lines is written, per script. */
const NOTICE_WINDOW_MS = 1000;

type Sink = (level: LuaLogLevel, script: string, message: string) => void;

export class LogLimiter {
  private lines: number;
  private bytes: number;
  private refilled = performance.now();
  /** Script → lines dropped since its last notice. */
  private readonly dropped = new Map<string, number>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly rate: LogRate,
    private readonly sink: Sink,
  ) {
    this.lines = rate.burstLines;
    this.bytes = rate.burstBytes;
  }

  write(level: LuaLogLevel, script: string, message: string): void {
    this.refill();
    if (this.lines >= 1 && this.bytes >= message.length) {
      this.lines -= 1;
      this.bytes -= message.length;
      this.sink(level, script, message);
      return;
    }
    this.dropped.set(script, (this.dropped.get(script) ?? 0) + 1);
    this.timer ??= setTimeout(() => this.flush(), NOTICE_WINDOW_MS).unref();
  }

  /** Writes the notices still due (the VM is closing). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const { linesPerSecond, bytesPerSecond } = this.rate;
    for (const [script, count] of this.dropped) {
      const why = `the scripts of one Lua VM may log ${linesPerSecond} lines and ${Math.round(bytesPerSecond / 1024)} KiB per second`;
      this.sink("warn", script, `${count} log lines dropped (${why}); log less`);
    }
    this.dropped.clear();
  }

  private refill(): void {
    const now = performance.now();
    const seconds = (now - this.refilled) / 1000;
    this.refilled = now;
    this.lines = Math.min(this.rate.burstLines, this.lines + seconds * this.rate.linesPerSecond);
    this.bytes = Math.min(this.rate.burstBytes, this.bytes + seconds * this.rate.bytesPerSecond);
  }
}
