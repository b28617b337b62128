/** How `waiter` prints frames: live on a terminal, one plain line per reply otherwise. */
import { type FinalFrame, type ProgressFrame, UNAUTHORIZED } from "@homeagent/cli-protocol";

export const UNAUTHORIZED_HINT = "homed requires an API key: pass --api-key KEY or set HOMEAGENT_API_KEY";

export function finalText(frame: Exclude<FinalFrame, { type: "error" }>): string {
  // Structured answers stay JSON so scripts can parse them; pretty-printed so people can read them.
  return frame.type === "response" ? frame.content : JSON.stringify(frame, null, 2);
}

export function errorText(error: string): string {
  return error === UNAUTHORIZED ? `unauthorized: ${UNAUTHORIZED_HINT}` : `error: ${error}`;
}

export class ReplyPrinter {
  private streamed = "";
  private atLineStart = true;

  /** `live`: stream deltas and tool calls as they happen (a person is watching). */
  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly err: NodeJS.WritableStream,
    private readonly live: boolean,
    private readonly color: boolean,
  ) {}

  readonly progress = (frame: ProgressFrame): void => {
    if (!this.live) return;
    if (frame.type === "content_delta") {
      if (frame.reset) {
        this.endLine();
        this.streamed = "";
      }
      this.write(frame.content);
      this.streamed += frame.content;
    } else if (frame.type === "tool_call") {
      this.endLine();
      this.write(`${this.dim(`  [${frame.tool}] ${frame.status}`)}\n`);
    }
  };

  /** Prints the final frame; returns false when it was an error. */
  final(frame: FinalFrame): boolean {
    const streamed = this.streamed;
    this.streamed = "";
    if (frame.type === "error") {
      this.endLine();
      this.err.write(`${errorText(frame.error)}\n`);
      return false;
    }
    // The reply may differ from what was streamed (a reset, or a stage rewrote it): then print it whole.
    if (frame.type === "response" && streamed !== "" && frame.content === streamed) this.endLine();
    else {
      this.endLine();
      this.write(`${finalText(frame)}\n`);
    }
    return true;
  }

  private write(text: string): void {
    if (text === "") return;
    this.out.write(text);
    this.atLineStart = text.endsWith("\n");
  }

  private endLine(): void {
    if (!this.atLineStart) this.write("\n");
  }

  private dim(text: string): string {
    return this.color ? `\x1b[2m${text}\x1b[22m` : text;
  }
}
