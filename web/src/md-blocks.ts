/**
 * Cuts a streamed Markdown reply into finished blocks, so each is rendered once and kept, and only the open
 * rest (the tail) is rendered again as text arrives. A cut goes only where rendering the two sides apart
 * gives exactly what rendering them together gives: after blank lines outside a code fence, before a line
 * that starts at the margin and is not a list item (a blank line then an indented line or another item can
 * continue a list). md-blocks.test.ts checks this against marked on a corpus, piece sizes 1 to 2000.
 *
 * A run with no such place (one huge code block, table, loose list or line) is cut anyway once the tail
 * passes TAIL_LIMIT, so no frame re-renders more than that: a code fence is closed and opened again, a
 * table's header is repeated (and marked `headless`, the view hides it), a list is cut at a blank line
 * before an item, and anything else at a line end or, for one endless line, at a space. Those cuts keep
 * the text but not always the exact look (a loose list becomes several lists).
 */

export interface Block {
  /** Markdown of the block: a slice of the reply, after a carried-over fence opener or table header. */
  src: string;
  /** It starts with a table header repeated from the block before, which is not to be shown again. */
  headless?: boolean;
}

/** Characters the tail may reach before it is cut at a place that is not exact. */
export const TAIL_LIMIT = 64 * 1024;

interface Fence {
  /** The backticks or tildes that opened it; a closing run must start with them. */
  run: string;
  indent: string;
  /** The opening line, repeated after a forced cut. */
  opener: string;
  /**
   * A line inside was indented less than the opener: an indented fence like that was most likely in a list
   * item that has ended (and the fence with it), so a forced cut does not close and reopen it.
   */
  shallower: boolean;
}

const FENCE_OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^ {0,3}([`~]+) *$/;
const BLANK = /^[ \t]*$/;
const LIST_ITEM = /^(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
const TABLE_DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
/** How far back from the end a cut inside one endless line looks for a space. */
const LINE_CUT_WINDOW = 4096;

export class BlockSplitter {
  /** Where the tail starts in the text. */
  private done = 0;
  /** Where the next line to look at starts. */
  private scanned = 0;
  private fence: Fence | null = null;
  /** The end of the blank lines after the tail's last line with content, until the next line decides. */
  private blankEnd = -1;
  /** The tail has a line with content. */
  private content = false;
  /** A blank-line boundary before a list item in the tail: where a forced cut goes first. */
  private looseCut = -1;
  /** The header and delimiter rows of the table the tail ends in. */
  private table: string | null = null;
  private previousLine = "";
  /** The line at `scanned` continues one that a forced cut split. */
  private midLine = false;
  /** Rendered before the tail: a fence opener or table header carried over a forced cut. */
  private prefix = "";
  private headless = false;
  private finished = false;

  constructor(private readonly limit = TAIL_LIMIT) {}

  /** The finished blocks new in `text`, the whole reply so far (it extends the text of earlier calls). */
  push(text: string): Block[] {
    const out: Block[] = [];
    if (this.finished) return out;
    for (let nl = text.indexOf("\n", this.scanned); nl >= 0; nl = text.indexOf("\n", this.scanned)) {
      this.line(text, nl, out);
      this.scanned = nl + 1;
      if (this.scanned - this.done > this.limit && this.blankEnd < 0) this.forceAtLine(text, out);
    }
    if (text.length - this.scanned > this.limit) this.forceInLine(text, out);
    return out;
  }

  /** The unfinished rest as Markdown, to render as it stands. */
  tail(text: string): string {
    return this.finished ? "" : this.prefix + text.slice(this.done);
  }

  /** Where the tail starts: the text up to here is in finished blocks. */
  get finishedUpTo(): number {
    return this.done;
  }

  /** Whether the tail starts with a carried-over table header (see Block.headless). */
  get tailHeadless(): boolean {
    return this.headless;
  }

  /** The reply is complete: what is left becomes the last block (none when nothing is left). */
  finish(text: string): Block[] {
    const out = this.push(text);
    if (this.finished) return out;
    this.finished = true;
    if (this.done < text.length || this.prefix) out.push(this.take(text, text.length));
    return out;
  }

  private line(text: string, nl: number, out: Block[]): void {
    const end = text.charCodeAt(nl - 1) === 13 && nl > this.scanned ? nl - 1 : nl;
    const line = text.slice(this.scanned, end);
    const previous = this.previousLine;
    this.previousLine = line;
    if (this.midLine) {
      this.midLine = false;
      return;
    }
    if (this.fence) {
      const close = FENCE_CLOSE.exec(line);
      if (close?.[1].startsWith(this.fence.run)) this.fence = null;
      else if (!BLANK.test(line) && !line.startsWith(this.fence.indent)) this.fence.shallower = true;
      return;
    }
    if (BLANK.test(line)) {
      this.table = null;
      if (this.content) this.blankEnd = nl + 1;
      return;
    }
    if (this.blankEnd >= 0) {
      if (!/^[ \t]/.test(line) && !LIST_ITEM.test(line)) out.push(this.take(text, this.blankEnd));
      else if (LIST_ITEM.test(line)) this.looseCut = this.blankEnd;
      this.blankEnd = -1;
    }
    this.content = true;
    const open = FENCE_OPEN.exec(line);
    if (open && !(open[2][0] === "`" && open[3].includes("`"))) {
      this.fence = { run: open[2], indent: open[1], opener: line, shallower: false };
    } else if (TABLE_DELIMITER.test(line) && (line.includes("|") || previous.includes("|"))) {
      this.table = `${previous}\n${line}\n`;
    }
  }

  /** The tail is over the limit after a whole line: cut at the best place that is not exact. */
  private forceAtLine(text: string, out: Block[]): void {
    if (this.looseCut > this.done) {
      out.push(this.take(text, this.looseCut));
      this.content = true;
    } else if (this.fence && !this.fence.shallower) {
      const { indent, run, opener } = this.fence;
      out.push(this.take(text, this.scanned, `${indent}${run}\n`));
      this.prefix = `${opener}\n`;
    } else if (this.table) {
      out.push(this.take(text, this.scanned));
      this.prefix = this.table;
      this.headless = true;
    } else {
      this.fence = null;
      out.push(this.take(text, this.scanned));
    }
  }

  /** One line alone is over the limit: cut it at a space near its end (or anywhere, e.g. in Chinese text). */
  private forceInLine(text: string, out: Block[]): void {
    const end = text.length - 1;
    const space = Math.max(text.lastIndexOf(" ", end), text.lastIndexOf("\t", end));
    let cut = space > end - LINE_CUT_WINDOW && space > this.scanned ? space + 1 : end;
    // Never between the two halves of a surrogate pair.
    if (cut > this.scanned && (text.charCodeAt(cut - 1) & 0xfc00) === 0xd800) cut -= 1;
    if (cut <= this.scanned) return;
    const fence = this.fence?.shallower ? null : this.fence;
    this.fence = fence;
    out.push(this.take(text, cut, fence ? `\n${fence.indent}${fence.run}\n` : "\n"));
    if (fence) this.prefix = `${fence.opener}\n`;
    this.scanned = cut;
    this.midLine = true;
    this.content = true;
  }

  private take(text: string, end: number, suffix = ""): Block {
    const block: Block = { src: this.prefix + text.slice(this.done, end) + suffix };
    if (this.headless) block.headless = true;
    this.done = end;
    this.prefix = "";
    this.headless = false;
    this.looseCut = -1;
    this.blankEnd = -1;
    this.content = false;
    return block;
  }
}
