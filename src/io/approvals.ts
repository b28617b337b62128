/**
 * The approvals broker: a tool asks the user (sdk.ask), the interactive clients connected (waiter, a
 * logged-in dashboard) are shown the question, and the first answer decides. The rules that make it safe
 * live here, not in the clients: a question is asked only on behalf of one of the asking plugin's own
 * running tool calls and ends with it (/stop, the tool's deadline); an answer given from inside any tool
 * call is refused, so a model can never approve its own request; "always" is bound to a hash of exactly
 * what was approved; the wait is bounded by core.agent.approval_timeout; every question and its outcome is
 * recorded.
 */
import {
  APPROVAL_CHOICES,
  type ApprovalChoice,
  type ApprovalOutcome,
  type ApprovalRecord,
  type ApprovalRequest,
  type PendingApproval,
} from "@homeagent/sdk";
import type { RunningCall } from "../kernel/tools.js";
import { HomeAgentError } from "../util/errors.js";
import { currentToolCall } from "../util/tool-scope.js";
import { visibleText } from "../util/visible-text.js";
import { type ApprovalStore, newApprovalId, subjectHash } from "./approval-store.js";

/** Questions waiting at once: over all turns, and of one plugin (a turn asks one at a time). */
export const MAX_PENDING_APPROVALS = 16;
const MAX_PENDING_PER_PLUGIN = 4;
const MAX_SUBJECT_CHARS = 64 * 1024;
/** A question is read by a person: longer is refused before any work is spent on it. */
const MAX_QUESTION_CHARS = 8_000;
const MAX_CLIENT_NAME = 40;

export interface ApprovalBrokerDeps {
  store: ApprovalStore;
  /** core.agent.approval_timeout, read at each question. */
  timeoutMs: () => number;
  /** The kernel's running tool calls (ToolRegistry.runningCall). */
  runningCall: (requestId: string, owner: string) => RunningCall | undefined;
  /** Publishes an `approval` event on the bus. */
  publish: (payload: Record<string, unknown>) => void;
  now?: () => number;
}

interface Waiting {
  approval: PendingApproval;
  hash: string;
  finish: (outcome: ApprovalOutcome) => void;
}

export type ClosedOutcome = "once" | "always" | "remembered" | "denied" | "timeout" | "no_client" | "cancelled";

export class ApprovalBroker {
  private readonly waiting = new Map<string, Waiting>();
  /** Interactive clients connected, by channel, as their plugins report them. */
  private readonly clients = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly deps: ApprovalBrokerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** A client plugin reports how many interactive clients it has on `channel` now. */
  setClients(channel: string, count: number): void {
    if (!Number.isInteger(count) || count < 0) {
      throw new HomeAgentError({ code: "invalid_argument", message: "a client count is an integer ≥ 0" });
    }
    if (count === 0) this.clients.delete(channel);
    else this.clients.set(channel, count);
  }

  async ask(plugin: string, req: ApprovalRequest): Promise<ApprovalOutcome> {
    const { requestId, question, subject, options } = checkRequest(req);
    const call = this.deps.runningCall(requestId, plugin);
    if (!call) {
      throw new HomeAgentError({
        code: "approval_refused",
        message: `plugin "${plugin}" asked for an approval outside its own tool calls: ask from inside a tool handler, with the requestId of its context`,
      });
    }
    const shown = visibleText(question);
    const hash = subjectHash(plugin, subject ?? question);
    const base = { id: newApprovalId(), plugin, channel: call.channel, question: shown, askedAt: this.now() };
    // A standing "always" counts only where the asker offers "always" for this request.
    const remembered = options.includes("always") ? this.deps.store.useRemembered(hash) : undefined;
    if (remembered) {
      this.deps.store.record({ ...base, outcome: "remembered" });
      return { approved: true, how: "remembered", by: "always" };
    }
    const audience = this.audience(call.channel);
    if (audience.length === 0) {
      this.deps.store.record({ ...base, outcome: "no_client" });
      return { approved: false, reason: "no_client" };
    }
    this.checkRoom(plugin, requestId);
    const limit = this.deps.timeoutMs();
    const timeoutMs = req.timeoutMs === undefined ? limit : Math.min(Math.max(req.timeoutMs, 1), limit);
    const approval: PendingApproval = { ...base, requestId, options, expiresAt: base.askedAt + timeoutMs };
    return this.wait(approval, audience, hash, timeoutMs, call.signal);
  }

  /** The questions waiting, the oldest first. */
  pending(): PendingApproval[] {
    return [...this.waiting.values()].map((w) => ({ ...w.approval, options: [...w.approval.options] }));
  }

  answer(id: string, choice: ApprovalChoice, by: string): void {
    const call = currentToolCall();
    if (call) {
      throw new HomeAgentError({
        code: "approval_refused",
        message: `an approval cannot be answered from a tool call (${call.tool}): only the user can answer, in waiter or the dashboard`,
      });
    }
    const w = this.waiting.get(id);
    if (!w) {
      throw new HomeAgentError({
        code: "not_found",
        message: `no approval ${JSON.stringify(id)} is waiting: it was answered, timed out or cancelled`,
      });
    }
    if (!w.approval.options.includes(choice)) {
      throw new HomeAgentError({
        code: "invalid_argument",
        message: `"${choice}" is not offered for this approval; choose one of ${w.approval.options.join(", ")}`,
      });
    }
    const name = typeof by === "string" && by.trim() ? by.trim().slice(0, MAX_CLIENT_NAME) : "user";
    if (choice === "deny") w.finish({ approved: false, reason: "denied", by: name });
    else {
      if (choice === "always") this.deps.store.remember(w.approval.plugin, w.hash, w.approval.question);
      w.finish({ approved: true, how: choice, by: name });
    }
  }

  remembered() {
    return this.deps.store.remembered();
  }

  revoke(id: string): boolean {
    return this.deps.store.revoke(id);
  }

  log(limit?: number): ApprovalRecord[] {
    return this.deps.store.log(limit);
  }

  /** Records and remembered answers whose question mentions every term; removed when `remove`. */
  forget(terms: readonly string[], remove: boolean): number {
    return this.deps.store.forget(terms, remove);
  }

  /** Stopping: every waiting question is cancelled. */
  close(): void {
    for (const w of [...this.waiting.values()]) w.finish({ approved: false, reason: "cancelled" });
  }

  /** One question at a time per turn, a few per plugin, a bound over all: no asker can crowd out the others. */
  private checkRoom(plugin: string, requestId: string): void {
    const waiting = [...this.waiting.values()].map((w) => w.approval);
    const why = waiting.some((a) => a.requestId === requestId)
      ? "this turn already waits for an answer to another question"
      : waiting.filter((a) => a.plugin === plugin).length >= MAX_PENDING_PER_PLUGIN
        ? `plugin "${plugin}" already has ${MAX_PENDING_PER_PLUGIN} questions waiting`
        : waiting.length >= MAX_PENDING_APPROVALS
          ? `${MAX_PENDING_APPROVALS} questions are already waiting`
          : undefined;
    if (why) {
      throw new HomeAgentError({ code: "queue_full", message: `${why}; ask again once the user has answered` });
    }
  }

  /** The channels whose clients are asked: the turn's own when it has one connected, else every one. */
  private audience(channel: string): string[] {
    if (this.clients.has(channel)) return [channel];
    return [...this.clients.keys()].sort();
  }

  private wait(
    approval: PendingApproval,
    audience: string[],
    hash: string,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<ApprovalOutcome> {
    return new Promise((resolve) => {
      const onAbort = (): void => finish({ approved: false, reason: "cancelled" });
      const timer = setTimeout(() => finish({ approved: false, reason: "timeout" }), timeoutMs);
      const finish = (outcome: ApprovalOutcome): void => {
        if (!this.waiting.delete(approval.id)) return;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        const closed: ClosedOutcome = outcome.approved ? outcome.how : outcome.reason;
        this.deps.store.record({
          id: approval.id,
          plugin: approval.plugin,
          channel: approval.channel,
          question: approval.question,
          askedAt: approval.askedAt,
          outcome: closed,
          ...(outcome.by ? { by: outcome.by, answeredAt: this.now() } : {}),
        });
        this.deps.publish({
          phase: "closed",
          id: approval.id,
          requestId: approval.requestId,
          outcome: closed,
          ...(outcome.by ? { by: outcome.by } : {}),
        });
        resolve(outcome);
      };
      this.waiting.set(approval.id, { approval, hash, finish });
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener("abort", onAbort, { once: true });
      this.deps.publish({ phase: "asked", approval: { ...approval, options: [...approval.options] }, audience });
    });
  }
}

function checkRequest(req: ApprovalRequest): Required<Pick<ApprovalRequest, "requestId" | "question">> & {
  subject?: string;
  options: ApprovalChoice[];
} {
  if (req === null || typeof req !== "object") throw invalid("ask takes {requestId, question, subject?, options?}");
  const { requestId, question, subject, options, timeoutMs } = req;
  if (typeof requestId !== "string" || !requestId) throw invalid("ask needs the tool context's requestId");
  if (typeof question !== "string" || !question.trim()) throw invalid("ask needs a question to show the user");
  if (question.length > MAX_QUESTION_CHARS) {
    throw invalid(`a question is at most ${MAX_QUESTION_CHARS} characters (this one has ${question.length})`);
  }
  if (subject !== undefined && (typeof subject !== "string" || subject.length > MAX_SUBJECT_CHARS)) {
    throw invalid(`an approval's subject is a string of at most ${MAX_SUBJECT_CHARS} characters`);
  }
  if (timeoutMs !== undefined && (typeof timeoutMs !== "number" || !(timeoutMs > 0))) {
    throw invalid("an approval's timeoutMs is a number of milliseconds > 0");
  }
  const given = options ?? [...APPROVAL_CHOICES];
  if (!Array.isArray(given) || given.some((o) => !APPROVAL_CHOICES.includes(o))) {
    throw invalid(`an approval's options are some of ${APPROVAL_CHOICES.join(", ")}`);
  }
  const chosen = APPROVAL_CHOICES.filter((c) => c === "deny" || given.includes(c));
  return { requestId, question, subject, options: chosen };
}

function invalid(message: string): HomeAgentError {
  return new HomeAgentError({ code: "invalid_argument", message });
}
