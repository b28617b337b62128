/**
 * Unprompted delivery: a plugin sends text to a channel outside any turn (a reminder, a background result);
 * when nobody is connected to that channel it waits in the channel's inbox until a client connects. Part of
 * `@homeagent/sdk`, re-exported by index.ts.
 */

export interface SendOptions {
  /** What kind of message this is, for the client's display ("reminder", "result", "notice"); default "notice". */
  kind?: string;
}

/** delivered: a client has it now; kept: nobody was connected, so it waits in the channel's inbox. */
export type SendResult = { delivered: true; detail: string } | { delivered: false; kept: true };

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
