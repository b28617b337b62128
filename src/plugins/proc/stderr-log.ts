/**
 * A plugin's stderr: free text that goes to the daemon log line by line, each line bounded so a plugin
 * printing one endless line cannot flood the log or the daemon's memory, and the last few KiB kept for
 * the crash report (the last words of a crashing plugin are usually the reason).
 */
import { StringDecoder } from "node:string_decoder";

export const STDERR_LINE_CHARS = 4096;
export const STDERR_TAIL_BYTES = 4096;

export class StderrLog {
  private readonly decoder = new StringDecoder("utf8");
  private line = "";
  private cut = 0;
  private last = Buffer.alloc(0);

  constructor(private readonly emit: (line: string) => void) {}

  push(chunk: Buffer): void {
    this.last = Buffer.concat([this.last, chunk]);
    if (this.last.length > STDERR_TAIL_BYTES) this.last = this.last.subarray(this.last.length - STDERR_TAIL_BYTES);
    const text = this.decoder.write(chunk);
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      this.take(text.slice(start, nl === -1 ? text.length : nl));
      if (nl === -1) return;
      this.flush();
      start = nl + 1;
    }
  }

  /** EOF: a last line without a newline still counts. */
  end(): void {
    this.take(this.decoder.end());
    if (this.line !== "" || this.cut > 0) this.flush();
  }

  /** The last STDERR_TAIL_BYTES bytes the plugin wrote to stderr. */
  tail(): string {
    // A cut through a multi-byte character at the front would show up as a replacement character.
    let from = 0;
    while (from < this.last.length && (this.last[from] & 0xc0) === 0x80) from++;
    return this.last.subarray(from).toString("utf8");
  }

  private take(piece: string): void {
    const room = STDERR_LINE_CHARS - this.line.length;
    if (piece.length <= room) {
      this.line += piece;
      return;
    }
    this.line += piece.slice(0, Math.max(0, room));
    this.cut += piece.length - Math.max(0, room);
  }

  private flush(): void {
    const line = this.line.endsWith("\r") ? this.line.slice(0, -1) : this.line;
    this.emit(this.cut > 0 ? `${line}… [${this.cut} more characters]` : line);
    this.line = "";
    this.cut = 0;
  }
}
