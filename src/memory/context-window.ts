/**
 * The context window behind the prompt's timeline. RecentContext keeps the latest events;
 * RelevanceContext (three-layer memory) replaces it behind this same interface.
 */
export interface ContextEvent {
  ts: number;
  role: "user" | "agent";
  source: string;
  channel: string;
  text: string;
  tools?: string[];
}

export interface ContextWindow {
  append(event: ContextEvent): void;
  /** Drops low-relevance events for `query` so that at most `keep` remain in the window. */
  prune(query: string, keep: number): void;
  recent(limit: number): ContextEvent[];
}
