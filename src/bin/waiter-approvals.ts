/**
 * What an interactive waiter shows of the frames that answer no line: notices (reminders, results, what the
 * inbox kept) printed as they come, each line behind "» ", and approvals asked one at a time — `[approve] …`
 * then `[o]nce / [a]lways / [d]eny (…id)?` — whose answer is the next line the user types, sent out of turn
 * while the turn waits for it. Everything printed is made visible first (control characters, ANSI escapes,
 * bidi marks), whatever the daemon already did: the terminal is the last place a crafted text could hide
 * what is approved. So that a reminder cannot pass for a question, notices never start a line as a question
 * does, and a question is asked again below any notice printed while it waits; so that an answer meant for
 * one question cannot approve the next, a line typed within a second of the question changing under the
 * user (answered elsewhere) is not taken.
 */
import type { PushFrame } from "@homeagent/cli-protocol";
import { visibleText } from "../util/visible-text.js";

type Approval = Extract<PushFrame, { type: "approval" }>;

const CHOICES: Readonly<Record<string, string>> = {
  o: "once",
  once: "once",
  a: "always",
  always: "always",
  d: "deny",
  deny: "deny",
  n: "deny",
  no: "deny",
};
const MAX_NOTICE_CHARS = 16_000;

/** A question that took the place of another less than this ago is not answered by the next line yet. */
export const SETTLE_MS = 1_000;

export interface PromptIo {
  /** Prints a block of text on its own lines, keeping what the user is typing. */
  print(text: string): void;
  /** Asks for a line with `prompt` (the approval's), or back to the normal prompt with undefined. */
  prompt(prompt?: string): void;
  /** Sends the out-of-turn answer line. */
  send(line: string): void;
  /** Milliseconds, for the settle rule; default Date.now. */
  now?: () => number;
}

export class ApprovalPrompts {
  private readonly queue: Approval[] = [];
  /** When the question asked changed without the user answering it here; 0 when it did not. */
  private swappedAt = 0;

  constructor(private readonly io: PromptIo) {}

  private now(): number {
    return (this.io.now ?? Date.now)();
  }

  /** Whether the next line the user types answers an approval. */
  get waiting(): boolean {
    return this.queue.length > 0;
  }

  readonly onPush = (frame: PushFrame): void => {
    if (frame.type === "notice") {
      this.io.print(noticeText(frame));
      if (this.queue.length > 0) this.ask();
    } else if (frame.type === "approval") {
      if (this.queue.some((a) => a.id === frame.id)) return;
      this.queue.push(frame);
      if (this.queue.length === 1) this.ask();
    } else {
      const at = this.queue.findIndex((a) => a.id === frame.id);
      if (at === -1) return;
      this.queue.splice(at, 1);
      this.io.print(`(approval ${frame.outcome}${frame.by ? ` in ${frame.by}` : ""})`);
      if (at === 0) {
        this.swappedAt = this.queue.length > 0 ? this.now() : 0;
        this.next();
      }
    }
  };

  /** Takes the user's line when an approval waits for it; returns whether it did. */
  answer(line: string): boolean {
    const head = this.queue[0];
    if (!head) return false;
    if (this.swappedAt > 0 && this.now() - this.swappedAt < SETTLE_MS) {
      this.io.print("the question changed just now: read it, then answer");
      this.swappedAt = 0;
      this.ask();
      return true;
    }
    this.swappedAt = 0;
    const choice = CHOICES[line.trim().toLowerCase()];
    if (!choice || !head.options.includes(choice)) {
      this.io.print(`type ${head.options.map((o) => o[0]).join(", ")} (${head.options.join(" / ")})`);
      this.io.prompt(promptFor(head));
      return true;
    }
    this.queue.shift();
    this.io.send(`/approve ${head.id} ${choice}`);
    this.next();
    return true;
  }

  private next(): void {
    if (this.queue.length > 0) this.ask();
    else this.io.prompt();
  }

  private ask(): void {
    const head = this.queue[0];
    this.io.print(`[approve] ${visibleText(head.plugin, 40)}: ${visibleText(head.question)}`);
    this.io.prompt(promptFor(head));
  }
}

/** The choices and the question's id (its end), so an answer names which question it is for. */
function promptFor(a: Approval): string {
  const labels = a.options.map((o) => `[${o[0]}]${o.slice(1)}`);
  return `${labels.join(" / ")} (…${visibleText(a.id.slice(-4), 4)})? `;
}

export function noticeText(frame: Extract<PushFrame, { type: "notice" }>): string {
  // Lines are kept (a command's output has several); everything else invisible is shown.
  const text = frame.text
    .slice(0, MAX_NOTICE_CHARS)
    .split("\n")
    .map((line) => `» ${visibleText(line, MAX_NOTICE_CHARS)}`)
    .join("\n");
  return frame.kind === "error" ? `error: ${text.slice(2)}` : text;
}
