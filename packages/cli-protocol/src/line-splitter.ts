/**
 * Splits a byte stream into lines. It works on bytes rather than decoded strings so that a multi-byte
 * character split across chunks stays intact and the cap counts bytes, as the error message promises.
 * A line over the cap is reported once and then skipped up to its newline, so one bad line never costs
 * the connection.
 *
 * A reader that cannot take more lines yet pauses the splitter: the rest of the current chunk waits, unsplit,
 * until resume(). With the socket paused as well, what one connection holds is bounded by a chunk plus one
 * partial line, however many lines the peer sends.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private discarding = false;
  /** Chunks not split yet; `offset` is where the first one's unsplit part starts. */
  private backlog: Buffer[] = [];
  private offset = 0;
  private paused = false;
  private splitting = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: () => void,
  ) {}

  push(chunk: Buffer): void {
    if (chunk.length > 0) this.backlog.push(chunk);
    this.split();
  }

  /** No more lines are delivered until resume(); takes effect even inside an onLine callback. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.split();
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Bytes held: the chunks not split yet and the partial line so far. */
  get bufferedBytes(): number {
    return this.backlog.reduce((sum, chunk) => sum + chunk.length, -this.offset) + this.pendingBytes;
  }

  /** Drops everything held (the peer has gone). */
  clear(): void {
    this.backlog = [];
    this.offset = 0;
    this.pending = [];
    this.pendingBytes = 0;
  }

  /** Not re-entrant: a push() or resume() from inside onLine leaves the work to the loop already running. */
  private split(): void {
    if (this.splitting) return;
    this.splitting = true;
    try {
      while (!this.paused && this.backlog.length > 0) {
        const chunk = this.backlog[0];
        const newline = chunk.indexOf(0x0a, this.offset);
        const end = newline === -1 ? chunk.length : newline;
        const part = chunk.subarray(this.offset, end);
        this.offset = end + 1;
        if (this.offset >= chunk.length) {
          this.backlog.shift();
          this.offset = 0;
        }
        if (newline === -1) this.keep(part);
        else this.finish(part);
      }
    } finally {
      this.splitting = false;
    }
  }

  private keep(part: Buffer): void {
    if (part.length === 0 || this.discarding) return;
    this.pending.push(part);
    this.pendingBytes += part.length;
    // One byte of slack for the '\r' of a CRLF line that sits exactly at the cap.
    if (this.pendingBytes > this.maxBytes + 1) {
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      this.onOversize();
    }
  }

  private finish(part: Buffer): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    let line = this.pendingBytes === 0 ? part : Buffer.concat([...this.pending, part]);
    this.pending = [];
    this.pendingBytes = 0;
    if (line.at(-1) === 0x0d) line = line.subarray(0, -1);
    if (line.length > this.maxBytes) this.onOversize();
    else this.onLine(line.toString("utf8"));
  }
}
