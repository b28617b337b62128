/**
 * The context window behind the prompt's timeline. RecentContext keeps the latest events;
 * RelevanceContext (three-layer memory) replaces it behind this same interface.
 */
export interface ContextEvent {
  /** Assigned by the window on append. */
  id?: number;
  ts: number;
  role: "user" | "agent";
  source: string;
  channel: string;
  text: string;
  tools?: string[];
  /**
   * Set on a user input whose turn failed (LLM error, cancelled, shutdown): why it got no reply. The input
   * stays (it was acknowledged), marked, so the next prompt shows it was asked and never answered.
   */
  unanswered?: string;
}

/** Room to make before an append: prune for `query` so that, with the new event, at most `keep` remain. */
export interface AppendRoom {
  query: string;
  keep: number;
}

export interface ContextWindow {
  /** Stores the event durably (after making `room`, in one transaction) and returns its id. */
  append(event: ContextEvent, room?: AppendRoom): number;
  markUnanswered(id: number, reason: string): void;
  /** Drops low-relevance events for `query` so that at most `keep` remain in the window. */
  prune(query: string, keep: number): void;
  recent(limit: number): ContextEvent[];
}
