/**
 * What the dashboard reads and answers of the agent's own initiative: approvals waiting (answered here),
 * standing "always" answers, the inbox of messages sent while no dashboard was open, and the timers.
 */
import type { ApprovalChoice, ApprovalRecord, InboxMessage, PendingApproval, RememberedApproval } from "@homeagent/sdk";
import { api, get, post } from "./api";

export type { ApprovalChoice, InboxMessage, PendingApproval };

/** GET /api/v1/approvals. */
export interface Approvals {
  pending: PendingApproval[];
  remembered: RememberedApproval[];
  recent: ApprovalRecord[];
}

/** One of GET /api/v1/timers (the timer plugin's timer_list). */
export interface Timer {
  id: number;
  next: string;
  nextAt: number;
  zone: string;
  cron?: string;
  message: string;
  channel: string;
}

export const loadApprovals = () => get<Approvals>("/api/v1/approvals");
export const answerApproval = (id: string, choice: ApprovalChoice) =>
  post(`/api/v1/approvals/${encodeURIComponent(id)}`, { choice });
export const revokeApproval = (id: string) => api("DELETE", `/api/v1/approvals/remembered/${encodeURIComponent(id)}`);
export const loadInbox = () => get<{ messages: InboxMessage[] }>("/api/v1/inbox");
/** Read = removed: what was shown is taken out of the inbox. */
export const markRead = (ids: number[]) => api<{ removed: number }>("DELETE", "/api/v1/inbox", { ids });
export const loadTimers = () => get<{ timers: Timer[] }>("/api/v1/timers");
export const cancelTimer = (id: number) => api("DELETE", `/api/v1/timers/${id}`);
