/**
 * Turns one kind of a turn's deltas (content or reasoning) into the text an OpenAI stream sends. An OpenAI
 * client only ever appends, so nothing sent can be taken back; the kernel, though, may start a call's text
 * over (`reset`) and a turn may have several LLM rounds. The rules, in the order they matter:
 *
 * - Every round's text is streamed as it arrives, the text of rounds that end in tool calls included (the
 *   model's "let me look that up"); the next round's text follows after a blank line.
 * - After a `reset`, the new text is held back while it repeats what was already sent (a retried stream
 *   usually does) and only what goes beyond it is sent. When it says something else (an interrupted call
 *   asked again), a blank line and the new text from its start follow what was sent.
 * - At the end (`finish`), the reply the turn gave is compared with what was sent of its last round: a
 *   stage handler may have rewritten it (before_output) or answered instead of the model. If the sent text
 *   is the start of the reply, only the rest is sent; if it differs, a blank line and the whole reply.
 */

const SEPARATOR = "\n\n";

export class StreamText {
  /** What the client has of the current round (after the last separator). */
  private round = "";
  /** The previous round's text, when it ended in tool calls: a reply of only that text was already sent. */
  private previous = "";
  /** After a reset: text of the restarted call so far, while it still repeats `round`. */
  private replay: string | null = null;
  private separate = false;
  private sentAny = false;

  /** The text to send for one delta ("" for nothing). */
  delta(content: string, reset: boolean): string {
    if (reset) {
      if (this.round !== "") this.replay = "";
      return "";
    }
    if (content === "") return "";
    if (this.replay === null) return this.emit(content);
    const fresh = this.replay + content;
    if (this.round.startsWith(fresh)) {
      this.replay = fresh;
      return "";
    }
    this.replay = null;
    if (fresh.startsWith(this.round)) return this.emit(fresh.slice(this.round.length));
    this.round = "";
    this.separate = true;
    return this.emit(fresh);
  }

  /** A round ended with tool calls: the next text starts a new paragraph. */
  boundary(): void {
    this.replay = null;
    if (this.round !== "") {
      this.previous = this.round;
      this.separate = true;
    }
    this.round = "";
  }

  /** The text still to send so that the client ends with `reply`, the turn's final text. */
  finish(reply: string): string {
    if (reply === this.round || (this.round === "" && reply === this.previous && this.separate)) return "";
    if (this.replay === null && this.round !== "" && reply.startsWith(this.round)) {
      return this.emit(reply.slice(this.round.length));
    }
    this.round = "";
    this.separate = this.sentAny;
    return this.emit(reply);
  }

  private emit(text: string): string {
    if (text === "") return "";
    const out = this.separate && this.sentAny ? SEPARATOR + text : text;
    this.separate = false;
    this.sentAny = true;
    this.round += text;
    return out;
  }
}
