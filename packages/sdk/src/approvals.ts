/**
 * Approvals: a tool asks the user before it does something risky, and only the user answers — in waiter or a
 * logged-in dashboard, never a tool call (a model can never approve its own request) and never a client that
 * holds only an API key. Part of `@homeagent/sdk`, re-exported by index.ts.
 */

/** once: this call only; always: this exact request from now on (remembered until revoked); deny. */
export type ApprovalChoice = "once" | "always" | "deny";

export const APPROVAL_CHOICES: readonly ApprovalChoice[] = ["once", "always", "deny"];

export interface ApprovalRequest {
  /** The running turn's id: the tool context's `requestId`. */
  requestId: string;
  /** What is asked, in the user's words (shown escaped: control characters and bidi marks made visible). */
  question: string;
  /**
   * Exactly what is approved (e.g. the argv and working directory of a command), kept as a hash: "always"
   * approves this subject again without asking, and nothing else. Default: the question.
   */
  subject?: string;
  /** The choices offered; "deny" is always among them. Default: all three. */
  options?: ApprovalChoice[];
  /** How long to wait for an answer; at most `core.agent.approval_timeout` (the default). */
  timeoutMs?: number;
}

/**
 * approved: `how` is "once", "always" (the user chose it now) or "remembered" (an earlier "always").
 * refused: "denied" by the user, "timeout" with no answer, "no_client" (nobody who could answer is
 * connected), "cancelled" (the turn was stopped).
 */
export type ApprovalOutcome =
  | { approved: true; how: "once" | "always" | "remembered"; by: string }
  | { approved: false; reason: "denied" | "timeout" | "no_client" | "cancelled"; by?: string };

/** A question waiting for the user. */
export interface PendingApproval {
  id: string;
  requestId: string;
  /** The plugin whose tool asks. */
  plugin: string;
  /** The channel of the turn that asks: its client is asked first. */
  channel: string;
  /** The question with control characters, CR, ANSI escapes and bidi marks made visible. */
  question: string;
  options: ApprovalChoice[];
  /** Unix milliseconds. */
  askedAt: number;
  expiresAt: number;
}

/** An "always" the user gave, until revoked. */
export interface RememberedApproval {
  id: string;
  plugin: string;
  /** The question it was given for (escaped). */
  question: string;
  /** Unix milliseconds. */
  createdAt: number;
  lastUsedAt: number;
  uses: number;
}

/** One approval asked, with how it ended. */
export interface ApprovalRecord {
  id: string;
  plugin: string;
  channel: string;
  question: string;
  askedAt: number;
  /** once, always, remembered, denied, timeout, no_client or cancelled. */
  outcome: string;
  /** Who answered: "waiter", "dashboard"; absent when nobody did. */
  by?: string;
  answeredAt?: number;
}

/**
 * Capability `io`, built-in plugins only: the interactive clients (waiter, the dashboard) show the questions
 * and pass on the user's answers. An answer given from inside a tool call is refused ("approval_refused").
 */
export interface ApprovalsAPI {
  pending(): PendingApproval[];
  /** `by` names the client the user answered in ("waiter", "dashboard"). Throws "not_found" when it has ended. */
  answer(id: string, choice: ApprovalChoice, by: string): void;
  remembered(): RememberedApproval[];
  /** Whether it was there to revoke. */
  revoke(id: string): boolean;
  /** The newest first. */
  log(limit?: number): ApprovalRecord[];
  /**
   * How many interactive clients (who can answer) this plugin has on its own output channel `channel` now.
   * A question goes to the clients of its turn's channel, or to every channel's when that one has none; with
   * none anywhere it is refused at once ("no_client").
   */
  setClients(channel: string, count: number): void;
}
