/**
 * Transcripts: what each turn looked like to the user, on every channel — the input, the reasoning, each tool
 * call with its result, approvals asked, the reply or the error — and the messages the agent sent on its own
 * (reminders, background results). A chat log, not memory: nothing here is pruned by relevance, NoMemory
 * turns are kept too (they still never enter memory), and it is bounded by age and size instead. Part of
 * `@homeagent/sdk`, re-exported by index.ts.
 */

/** A tool call of a turn, an approval one of its tools asked for, or a message the user sent while it ran. */
export type TranscriptItem =
  | {
      type: "tool";
      /** The tool call's id. */
      id: string;
      name: string;
      /** Its arguments as JSON (cut at 8,000 characters). */
      args: string;
      /** ok, error, denied, interrupted…; absent while it runs. */
      status?: string;
      /** Its result (cut at 16,000 characters, the cut said). */
      result?: string;
      durationMs?: number;
    }
  | {
      type: "approval";
      id: string;
      plugin: string;
      question: string;
      /** once, always, remembered, denied, timeout, no_client, cancelled; absent while it waits. */
      outcome?: string;
      by?: string;
    }
  | {
      /** A message the user sent while the turn ran (an interrupt): the model read it before its next step. */
      type: "interrupt";
      id: string;
      /** Who sent it (a channel's source, e.g. "webui"). */
      source: string;
      /** Cut at 100,000 characters. */
      text: string;
    };

export interface TranscriptEntry {
  /** Increases with every entry: the cursor of `before`. */
  id: number;
  /** "turn": an input and what came of it; "message": text the agent sent on its own. */
  kind: "turn" | "message";
  /** The turn's request id (none for a message). */
  requestId?: string;
  /** Unix milliseconds it began. */
  ts: number;
  endedAt?: number;
  source: string;
  channel: string;
  /** Kept out of long-term memory (terminal output, timer follow-ups…): here all the same. */
  noMemory: boolean;
  /** The user started a new topic with this turn (InjectOptions.newTopic). */
  newTopic?: boolean;
  /**
   * The request id of the turn this one took the place of (its reply asked again, or its message edited):
   * that entry stays in the transcript as an earlier version; only this one is in memory.
   */
  replaces?: string;
  /**
   * When this version was chosen back (`TranscriptsAPI.choose`), unix ms. Of a turn's versions, the one in
   * use is the one with the latest `chosenAt`, or else `ts` (while that turn is the channel's last in the
   * context window; once it has left, none can be chosen).
   */
  chosenAt?: number;
  /** The user's message ("" for a message). */
  input: string;
  /** Every round's reasoning, joined ("" when the model gave none). */
  reasoning: string;
  /** The reply, or the message's text. */
  reply: string;
  status: "running" | "done" | "error" | "stopped" | "interrupted";
  /** Why it failed (status error or stopped). */
  error?: string;
  /** For a message: reminder, result, notice… */
  messageKind?: string;
  items: TranscriptItem[];
}

export interface TranscriptQuery {
  /** Only this channel's entries (e.g. "cli" for waiter's, "webui" for the dashboard's). */
  channel?: string;
  /** Only entries older than this id (the last page's smallest), for "load earlier". */
  before?: number;
  /** Default 50, at most 200. */
  limit?: number;
  /** Only entries whose text (input, reply, reasoning, tool calls) holds every word of this, Chinese too. */
  search?: string;
}

/** The transcripts, newest first (capability `memory`); a turn's earlier version chosen back (`memory_admin`). */
export interface TranscriptsAPI {
  list(query?: TranscriptQuery): Promise<{ items: TranscriptEntry[]; more: boolean }>;
  /**
   * Makes this request's turn — an earlier version of its channel's last turn (one asked again or edited) —
   * the version in memory again: in one write it comes back into the context window and the version there
   * leaves, so the next request holds only this one. Resolves with the time it was chosen (its entry's
   * `chosenAt`). Refused: "not_found" for a request that is not a turn in the transcripts,
   * "invalid_argument" when it is not a version of its channel's last turn still in the context window.
   */
  choose(requestId: string): Promise<{ chosenAt: number }>;
}
