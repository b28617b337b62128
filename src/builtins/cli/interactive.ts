/**
 * The cli channel's interactive clients (waiters at a prompt, or `-c` on a terminal): they are sent what the
 * agent says unprompted on channel "cli" (reminders, results, the inbox kept while none was connected) and
 * the approvals a tool asks, and they answer those approvals. With none connected, the output channel
 * reports "no_client", so what it was sent waits in the inbox, and an approval is not waited for.
 */
import { APPROVE_LINE, type FinalFrame, INTERACTIVE_LINE, type PushFrame, STOP_LINE } from "@homeagent/cli-protocol";
import { type AgentEvent, type ApprovalChoice, type OutputMessage, type PluginSDK, SdkError } from "@homeagent/sdk";
import { CLI_CHANNEL, INBOX_BATCH } from "./cli-channel.js";
import type { CliConnection, ConnectionHooks } from "./connection.js";

export class InteractiveClients implements ConnectionHooks {
  private readonly clients = new Set<CliConnection>();

  constructor(private readonly sdk: PluginSDK) {}

  get size(): number {
    return this.clients.size;
  }

  /** The output channel "cli": unprompted messages (and replies of turns no client of this one started). */
  readonly deliver = (msg: OutputMessage): string => {
    if (this.clients.size === 0) {
      throw new SdkError({ code: "no_client", message: "no interactive waiter is connected" });
    }
    const kind = typeof msg.meta.kind === "string" ? msg.meta.kind : msg.reply ? "reply" : "message";
    this.broadcast({ type: "notice", kind, text: msg.payload, at: Date.now() });
    return `shown in ${this.clients.size} waiter${this.clients.size === 1 ? "" : "s"}`;
  };

  /** `approval` events: a question for the cli channel's clients, and the end of one. */
  readonly onApproval = (event: AgentEvent): void => {
    const p = event.payload;
    if (p.phase === "closed") {
      const closed: PushFrame = { type: "approval_closed", id: String(p.id), outcome: String(p.outcome) };
      if (typeof p.by === "string") closed.by = p.by;
      this.broadcast(closed);
      return;
    }
    const audience = Array.isArray(p.audience) ? p.audience : [];
    if (!audience.includes(CLI_CHANNEL)) return;
    const approval = p.approval as {
      id: string;
      plugin: string;
      question: string;
      options: string[];
      expiresAt: number;
    };
    this.broadcast(approvalFrame(approval));
  };

  immediate(connection: CliConnection, line: string): boolean {
    if (line.trim() === STOP_LINE) {
      // Answered at once, not after the message it is meant to stop.
      if (!connection.stopRunning()) {
        connection.push({ type: "notice", kind: "error", text: "nothing is running to stop", at: Date.now() });
      }
      return true;
    }
    const approve = APPROVE_LINE.exec(line.trim());
    if (!approve) return false;
    try {
      if (!connection.interactive) {
        throw new SdkError({
          code: "approval_refused",
          message: "only an interactive waiter answers approvals: send /interactive first",
        });
      }
      this.sdk.approvals.answer(approve[1], approve[2] as ApprovalChoice, "waiter");
    } catch (err) {
      connection.push({
        type: "notice",
        kind: "error",
        text: err instanceof Error ? err.message : String(err),
        at: Date.now(),
      });
    }
    return true;
  }

  command(connection: CliConnection, line: string): FinalFrame | undefined {
    if (line.trim() !== INTERACTIVE_LINE) return undefined;
    if (!connection.interactive) {
      connection.interactive = true;
      this.clients.add(connection);
      this.counted();
    }
    // What was kept while no waiter was connected, then every question waiting (a user who connects now may
    // answer one asked before): all before the prompt.
    const kept = this.sdk.inbox.take(CLI_CHANNEL, INBOX_BATCH);
    for (const m of kept) connection.push({ type: "notice", kind: m.kind, text: m.text, at: m.createdAt });
    const more = this.sdk.inbox.count(CLI_CHANNEL);
    if (more > 0) {
      connection.push({ type: "notice", kind: "notice", text: `${more} more kept messages: /inbox`, at: Date.now() });
    }
    for (const a of this.sdk.approvals.pending()) connection.push(approvalFrame(a));
    return { type: "response", content: `interactive; ${kept.length} kept message${kept.length === 1 ? "" : "s"}` };
  }

  closed(connection: CliConnection): void {
    connection.interactive = false;
    if (this.clients.delete(connection)) this.counted();
  }

  /** Stopping: nobody is left to ask. */
  clear(): void {
    this.clients.clear();
    this.counted();
  }

  private counted(): void {
    this.sdk.approvals.setClients(CLI_CHANNEL, this.clients.size);
  }

  private broadcast(frame: PushFrame): void {
    for (const c of this.clients) c.push(frame);
  }
}

function approvalFrame(a: {
  id: string;
  plugin: string;
  question: string;
  options: string[];
  expiresAt: number;
}): PushFrame {
  return {
    type: "approval",
    id: a.id,
    plugin: a.plugin,
    question: a.question,
    options: [...a.options],
    expires_at: a.expiresAt,
  };
}
