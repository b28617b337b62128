/** How `waiter` prints frames: live on a terminal, one plain line per reply otherwise. */
import { type FinalFrame, type ProgressFrame, UNAUTHORIZED } from "@homeagent/cli-protocol";

export const UNAUTHORIZED_HINT = "homed requires an API key: pass --api-key KEY or set HOMEAGENT_API_KEY";

/**
 * A final frame as text, as every command answers: the tools one name a line, the settings one
 * `key = value` a line with its type and description. `json`: structured answers as JSON, for scripts.
 */
export function finalText(frame: Exclude<FinalFrame, { type: "error" }>, json = false): string {
  if (frame.type === "response") return frame.content;
  // The MCP frames are meant for `waiter mcp`; typed at the prompt, they print as they came.
  if (json || frame.type === "mcp_tools" || frame.type === "mcp_result") return JSON.stringify(frame, null, 2);
  if (frame.type === "tools") {
    return frame.tools.length === 0
      ? "no tools"
      : [`${frame.tools.length} tool${frame.tools.length === 1 ? "" : "s"}:`, ...frame.tools.map((t) => `  ${t}`)].join(
          "\n",
        );
  }
  if (frame.settings.length === 0) return "no settings under that prefix";
  const width = Math.max(...frame.settings.map((s) => s.key.length));
  return (
    frame.settings
      // A value of several lines (a prompt) is quoted, so each setting keeps to its line.
      .map((s) =>
        `${s.key.padEnd(width)} = ${s.value === "" || /[\n\r]/.test(s.value) ? JSON.stringify(s.value) : s.value}  (${s.type}) ${s.description}`.trimEnd(),
      )
      .join("\n")
  );
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
    /** Structured answers (/tools, /settings) as JSON rather than text. */
    private readonly json = false,
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
      this.write(`${finalText(frame, this.json)}\n`);
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
