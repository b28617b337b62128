/**
 * Transcript writes that meet a busy file — the scrub's VACUUM after a forget holds transcripts.db for a few
 * seconds — wait here, in order, and are tried again, instead of being lost (a write gives up after the
 * file's short busy timeout, so the turn itself is never held up). Once one waits, later ones queue behind
 * it: a turn's end never lands before its beginning. Bounded: past MAX_WAITING a write is dropped, and said.
 */
import { errorMessage } from "../util/errors.js";

/** Writes held at most (a few seconds of a busy daemon's turns, with their tool calls). */
export const MAX_WAITING = 10_000;
const RETRY_MS = 250;

export class WriteBacklog {
  private readonly waiting: Array<() => void> = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private dropped = 0;

  constructor(
    private readonly warn: (msg: string) => void,
    private readonly retryMs = RETRY_MS,
  ) {}

  /** Runs `write` now, or after the ones waiting; a write that finds the file busy waits. */
  run(write: () => void): void {
    if (this.waiting.length > 0) {
      this.hold(write);
      return;
    }
    try {
      write();
    } catch (err) {
      if (!busy(err)) throw err;
      this.hold(write);
    }
  }

  /** Writes still waiting. */
  get size(): number {
    return this.waiting.length;
  }

  /** Tries what waits once more, now (the daemon stops); what still cannot be written is said. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.drain();
    if (this.waiting.length > 0)
      this.warn(`transcripts: ${this.waiting.length} write(s) could not be made before the stop`);
    this.waiting.length = 0;
  }

  private hold(write: () => void): void {
    if (this.waiting.length >= MAX_WAITING) {
      this.dropped++;
      return;
    }
    this.waiting.push(write);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.drain();
      if (this.waiting.length > 0) this.schedule();
    }, this.retryMs);
    this.timer.unref();
  }

  private drain(): void {
    while (this.waiting.length > 0) {
      try {
        this.waiting[0]();
      } catch (err) {
        if (busy(err)) return;
        this.warn(`transcripts: a write failed and was dropped: ${errorMessage(err)}`);
      }
      this.waiting.shift();
    }
    if (this.dropped > 0) {
      this.warn(`transcripts: ${this.dropped} write(s) dropped while the file was busy (over ${MAX_WAITING} waiting)`);
      this.dropped = 0;
    }
  }
}

function busy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}
