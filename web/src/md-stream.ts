/**
 * The Markdown of one reply as it streams in, as HTML pieces a view can append and keep: finished blocks
 * (md-blocks.ts) are rendered once, a few together as one piece, and never again — unless a later piece
 * defines a reference link (`[x]: https://…`) that an earlier one uses, which is how a render of the
 * whole would resolve it. Only the tail is rendered again, and only when asked (once per frame).
 * Pure, like md-render.ts: md-stream.test.ts checks that the pieces add up to a render of the whole.
 */
import { type Block, BlockSplitter, TAIL_LIMIT } from "./md-blocks";
import type { LinkDefs, MarkdownRenderer } from "./md-render";

export interface Piece {
  /** Pieces are numbered in document order; a re-render keeps its piece's id. */
  id: number;
  html: string;
  /** Its first table's header repeats the one before it (a forced cut) and is to be hidden. */
  headless: boolean;
}

interface Kept {
  src: string;
  /** May use a reference link (it has a "["). */
  bracket: boolean;
  headless: boolean;
}

export class MarkdownStream {
  private readonly splitter: BlockSplitter;
  private readonly pending: Block[] = [];
  private readonly kept: Kept[] = [];
  private readonly redo = new Set<number>();
  private readonly defs: LinkDefs = {};
  private text = "";
  private final = false;
  /** The tail source last handed out; null when the view has no tail shown. */
  private tailShown: string | null = null;

  constructor(
    private readonly renderer: MarkdownRenderer,
    limit = TAIL_LIMIT,
  ) {
    this.splitter = new BlockSplitter(limit);
  }

  /** The reply so far; it must extend the text of earlier calls (start a new stream when it does not). */
  update(text: string, final: boolean): void {
    if (text === this.text && final === this.final) return;
    this.text = text;
    this.final = final;
    this.pending.push(...(final ? this.splitter.finish(text) : this.splitter.push(text)));
  }

  /**
   * Whether `text` can follow the text so far: it may grow, or lose trailing white space that no finished
   * block holds yet (a block is finished only once a later line has content).
   */
  accepts(text: string): boolean {
    if (this.final) return text === this.text;
    return text.length >= this.splitter.finishedUpTo;
  }

  /** Nothing left to render: the reply is final and every piece is out. */
  get idle(): boolean {
    return this.final && this.pending.length === 0 && this.redo.size === 0 && this.tailShown === "";
  }

  /** Finished blocks wait to be rendered. */
  get backlog(): boolean {
    return this.pending.length > 0;
  }

  /** Something is left to hand out: pieces, re-renders, or a tail unlike the one shown. */
  get busy(): boolean {
    return this.pending.length > 0 || this.redo.size > 0 || this.splitter.tail(this.text) !== this.tailShown;
  }

  /**
   * The next finished blocks, up to `maxChars` of source (at least one block), rendered as one piece; null
   * when none are waiting. After a piece the view must drop the tail it shows: the piece covers it.
   */
  nextPiece(maxChars: number): Piece | null {
    const first = this.pending.shift();
    if (!first) return null;
    let src = first.src;
    while (
      this.pending.length > 0 &&
      !this.pending[0].headless &&
      src.length + this.pending[0].src.length <= maxChars
    ) {
      src += (this.pending.shift() as Block).src;
    }
    const id = this.kept.length;
    const headless = first.headless === true;
    this.kept.push({ src, bracket: src.includes("["), headless });
    const { html, added } = this.renderer.block(src, this.defs);
    if (added.length > 0) this.definitionsAdded(added, id);
    this.tailShown = null;
    return { id, html, headless };
  }

  /** An earlier piece rendered again with link definitions that came after it; null when none is due. */
  redoPiece(): Piece | null {
    const [id] = this.redo;
    if (id === undefined) return null;
    this.redo.delete(id);
    const { src, headless } = this.kept[id];
    return { id, html: this.renderer.block(src, this.defs).html, headless };
  }

  /**
   * The tail's HTML when it differs from what the view shows ("" once it is gone), else null. Null too while
   * finished blocks wait: they go first.
   */
  tailHtml(): string | null {
    if (this.pending.length > 0 || this.redo.size > 0) return null;
    const src = this.splitter.tail(this.text);
    if (src === this.tailShown) return null;
    this.tailShown = src;
    return src === "" ? "" : this.renderer.block(src, { ...this.defs }).html;
  }

  /** Whether the tail starts with a repeated table header (forced cut) that the view hides. */
  get tailHeadless(): boolean {
    return this.splitter.tailHeadless;
  }

  private definitionsAdded(labels: string[], before: number): void {
    for (let id = 0; id < before; id++) {
      const piece = this.kept[id];
      if (!piece.bracket) continue;
      const lower = piece.src.toLowerCase();
      if (labels.some((label) => lower.includes(label))) this.redo.add(id);
    }
  }
}
