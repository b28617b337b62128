/**
 * The Markdown of one reply as it streams in, as HTML pieces a view can append and keep: finished blocks
 * (md-blocks.ts) are rendered once, a few together as one piece, and never again — unless a later piece
 * defines a reference link (`[x]: https://…`) that an earlier one uses, which is how a render of the
 * whole would resolve it. Each piece records the labels it could not resolve, so a new definition
 * re-renders only the pieces that wanted that very label, and at most MAX_REDOS times while the reply
 * streams; the rest wait for the final text and are rendered once then. Only the tail is rendered again,
 * and only when asked (once per frame).
 * Pure, like md-render.ts: md-stream.test.ts checks that the pieces add up to a render of the whole.
 */
import { type Block, BlockSplitter, TAIL_LIMIT } from "./md-blocks";
import type { LinkDef, MarkdownRenderer } from "./md-render";

/** Re-renders of earlier pieces one reply may cause while it streams (each is a piece of a few KB). */
export const MAX_REDOS = 200;

export interface Piece {
  /** Pieces are numbered in document order; a re-render keeps its piece's id. */
  id: number;
  html: string;
  /** Its first table's header repeats the one before it (a forced cut) and is to be hidden. */
  headless: boolean;
}

interface Kept {
  src: string;
  headless: boolean;
}

export class MarkdownStream {
  private readonly splitter: BlockSplitter;
  private readonly pending: Block[] = [];
  private readonly kept: Kept[] = [];
  private readonly redo = new Set<number>();
  /** Pieces due a re-render after MAX_REDOS was spent: done once, when the final text is all out. */
  private readonly late = new Set<number>();
  private redos = 0;
  private readonly defs = new Map<string, LinkDef>();
  /** Normalised label → the pieces that use it and were rendered without its definition. */
  private readonly wanting = new Map<string, Set<number>>();
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
    return (
      this.final && this.pending.length === 0 && this.redo.size === 0 && this.late.size === 0 && this.tailShown === ""
    );
  }

  /** Finished blocks wait to be rendered. */
  get backlog(): boolean {
    return this.pending.length > 0;
  }

  /** Something is left to hand out: pieces, re-renders, or a tail unlike the one shown. */
  get busy(): boolean {
    return (
      this.pending.length > 0 ||
      this.redo.size > 0 ||
      (this.final && this.late.size > 0) ||
      this.splitter.tail(this.text) !== this.tailShown
    );
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
    this.kept.push({ src, headless });
    const { html, defined, wanted } = this.renderer.block(src, this.defs);
    for (const label of wanted) {
      const ids = this.wanting.get(label);
      if (ids) ids.add(id);
      else this.wanting.set(label, new Set([id]));
    }
    for (const [label, def] of defined) this.define(label, def);
    this.tailShown = null;
    return { id, html, headless };
  }

  /** An earlier piece rendered again with link definitions that came after it; null when none is due. */
  redoPiece(): Piece | null {
    if (this.final && this.pending.length === 0 && this.late.size > 0) {
      for (const id of this.late) this.redo.add(id);
      this.late.clear();
    }
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
    return src === "" ? "" : this.renderer.block(src, this.defs).html;
  }

  /** Whether the tail starts with a repeated table header (forced cut) that the view hides. */
  get tailHeadless(): boolean {
    return this.splitter.tailHeadless;
  }

  /** A new definition: the pieces that wanted its label are rendered again (now, or at the end). */
  private define(label: string, def: LinkDef): void {
    this.defs.set(label, def);
    const ids = this.wanting.get(label);
    if (!ids) return;
    this.wanting.delete(label);
    for (const id of ids) {
      if (this.redo.has(id) || this.late.has(id)) continue;
      if (this.redos < MAX_REDOS) {
        this.redos += 1;
        this.redo.add(id);
      } else {
        this.late.add(id);
      }
    }
  }
}
