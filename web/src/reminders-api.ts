/**
 * What the dashboard reads and answers of the agent's own initiative: approvals waiting (answered here),
 * standing "always" answers, the inbox of messages sent while no dashboard was open, and the timers.
 */
import { api, get, post } from "./api";

export type ApprovalChoice = "once" | "always" | "deny";

export interface PendingApproval {
  id: string;
  plugin: string;
  channel: string;
  /** Already escaped by the daemon: control characters and bidi marks are shown as \u{…}. */
  question: string;
  options: ApprovalChoice[];
  askedAt: number;
  expiresAt: number;
}

export interface RememberedApproval {
  id: string;
  plugin: string;
  question: string;
  createdAt: number;
  lastUsedAt: number;
  uses: number;
}

export interface ApprovalRecord {
  id: string;
  plugin: string;
  question: string;
  askedAt: number;
  outcome: string;
  by?: string;
}

export interface Approvals {
  pending: PendingApproval[];
  remembered: RememberedApproval[];
  recent: ApprovalRecord[];
}

export interface InboxMessage {
  id: number;
  kind: string;
  text: string;
  createdAt: number;
}

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
