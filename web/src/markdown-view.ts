/**
 * A reply's Markdown in the page, kept up to date as it streams. Each piece of md-stream.ts is sanitized
 * (markdown.ts) and appended once, in a wrapper of its own; only the tail's wrapper is refilled. All the
 * work, even reading the new text, happens in animation frames (frame-queue.ts, one budget for every
 * view): a delta only records the text, so a burst of deltas costs one pass per frame, not one each.
 *
 * The wrappers are `content-visibility: auto` (styles.css): a piece out of view is neither laid out nor
 * painted, so a frame costs what is on screen, not the whole reply. While a backlog is worked off (a burst
 * of text, a long reply from the history), only the newest piece of each frame is shown; the others are
 * `md-cold` (content-visibility: hidden, not even laid out) until the backlog is gone, which halves the
 * page's work for a long reply. `data-rendered` on the element says "done" once the final text is all on
 * the page, "partial" before.
 */
import { type FrameJob, FrameQueue } from "./frame-queue";
import { pageRenderer, sanitizedFragment } from "./markdown";
import { MarkdownStream } from "./md-stream";

/** Source characters rendered as one piece at most: a few milliseconds of marked and DOMPurify. */
const PIECE_CHARS = 4 * 1024;
/** Rendering time per frame for every view together; the rest of the frame is the browser's. */
const FRAME_BUDGET_MS = 16;

const frames = new FrameQueue(
  (callback) => requestAnimationFrame(callback),
  () => performance.now(),
  FRAME_BUDGET_MS,
);

/** A little of everything marked and DOMPurify handle, rendered once while the page is idle (warmUp). */
const SAMPLE =
  "# T\n\nText **b** *i* `c` [l](https://example.com) 中文。\n\n- a\n- b\n\n1. c\n\n> q\n\n```js\nx\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
let warm = false;

/**
 * Renders a small sample once, when the browser is idle: the first use of the Markdown and sanitizer code
 * compiles it, and that should not happen in the frame that shows the first piece of a long reply.
 */
export function warmUp(): void {
  if (warm) return;
  warm = true;
  const run = () => void sanitizedFragment(pageRenderer().whole(SAMPLE));
  if (typeof requestIdleCallback === "function") requestIdleCallback(run, { timeout: 2000 });
  else setTimeout(run, 200);
}

export class MarkdownView implements FrameJob {
  private stream: MarkdownStream | null = null;
  private epoch = -1;
  private text = "";
  private final = false;
  /** Each piece's wrapper, by piece id. */
  private readonly pieces: HTMLElement[] = [];
  private tail: HTMLElement | null = null;
  /** Wrappers placed while more pieces waited (see the file's comment). */
  private cold: HTMLElement[] = [];
  private state = "";

  constructor(private readonly root: HTMLElement) {}

  /** The text so far; `epoch` changes when it is not the old text grown (a new text starts over). */
  update(text: string, epoch: number, final: boolean): void {
    if (!this.stream || epoch !== this.epoch || !this.stream.accepts(text)) {
      this.epoch = epoch;
      this.stream = new MarkdownStream(pageRenderer());
      this.pieces.length = 0;
      this.tail = null;
      this.cold = [];
      this.root.replaceChildren();
    }
    this.text = text;
    this.final = final;
    this.mark(false);
    frames.add(this);
  }

  destroy(): void {
    frames.remove(this);
  }

  run(hasTime: () => boolean): boolean {
    const stream = this.stream;
    if (!stream) return false;
    stream.update(this.text, this.final);
    let worked = false;
    while (!worked || hasTime()) {
      const piece = stream.nextPiece(PIECE_CHARS) ?? stream.redoPiece();
      if (piece) {
        this.place(piece.id, this.fragment(piece.html, piece.headless), stream.backlog);
      } else {
        const tail = stream.tailHtml();
        if (tail === null) break;
        this.tailElement().replaceChildren(this.fragment(tail, stream.tailHeadless));
      }
      worked = true;
    }
    // The newest piece shows now; the others of a backlog wait, out of layout, until it is worked off.
    this.cold.at(-1)?.classList.remove("md-cold");
    if (!stream.backlog) {
      for (const wrapper of this.cold) wrapper.classList.remove("md-cold");
      this.cold = [];
    }
    this.mark(stream.idle);
    return stream.busy;
  }

  private place(id: number, fragment: DocumentFragment, more: boolean): void {
    const known = this.pieces[id];
    if (known) {
      known.replaceChildren(fragment);
      return;
    }
    const wrapper = document.createElement("div");
    wrapper.className = "md-piece";
    if (more) {
      wrapper.classList.add("md-cold");
      this.cold.push(wrapper);
    }
    wrapper.append(fragment);
    this.pieces[id] = wrapper;
    // A new piece covers what the tail showed; the tail stays last.
    this.tail?.replaceChildren();
    if (this.tail) this.tail.before(wrapper);
    else this.root.append(wrapper);
  }

  private tailElement(): HTMLElement {
    if (!this.tail) {
      this.tail = document.createElement("div");
      this.tail.className = "md-tail";
      this.root.append(this.tail);
    }
    return this.tail;
  }

  private fragment(html: string, headless: boolean): DocumentFragment {
    const fragment = sanitizedFragment(html);
    if (headless) fragment.querySelector("thead")?.remove();
    return fragment;
  }

  private mark(done: boolean): void {
    const state = done ? "done" : "partial";
    if (state === this.state) return;
    this.state = state;
    this.root.dataset.rendered = state;
  }
}
