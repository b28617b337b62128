/**
 * Unprompted delivery: a plugin sends text to a channel outside any turn (a reminder, a background result);
 * when nobody is connected to that channel it waits in the channel's inbox until a client connects. Part of
 * `@homeagent/sdk`, re-exported by index.ts.
 */

export interface SendOptions {
  /** What kind of message this is, for the client's display ("reminder", "result", "notice"); default "notice". */
  kind?: string;
  /**
   * When `channel` is gone ("channel_not_found"), try the dashboard's (`webui`), then the terminal's
   * (`cli`): for a reminder or a result the user must get although the client that asked for it has gone.
   * A channel that fails or times out is not bypassed (it may still deliver). Default false.
   */
  fallback?: boolean;
}

/**
 * delivered: a client has it now; kept: nobody was connected, so it waits in the channel's inbox. `channel`:
 * where it went (another than asked only with `fallback`).
 */
export type SendResult =
  | { delivered: true; detail: string; channel: string }
  | { delivered: false; kept: true; channel: string };

export interface InboxMessage {
  id: number;
  channel: string;
  kind: string;
  text: string;
  /** Unix milliseconds. */
  createdAt: number;
}

/**
 * Capability `core`, for the plugin's own output channels only: what was kept while nobody was connected.
 * A message taken is removed ("read = removed").
 */
export interface InboxAPI {
  count(channel: string): number;
  /** The oldest first; nothing is removed. */
  peek(channel: string, limit?: number): InboxMessage[];
  /** The oldest first, removed from the inbox as they are returned. */
  take(channel: string, limit?: number): InboxMessage[];
  /** Removes these messages (e.g. the ones the user dismissed); returns how many there were. */
  remove(channel: string, ids: number[]): number;
}
