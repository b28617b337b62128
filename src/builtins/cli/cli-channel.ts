/** The name of the cli plugin's output channel, and of its inbox: one constant for the files that use it. */
export const CLI_CHANNEL = "cli";

/**
 * Kept messages handed to a client at once: at 16,000 characters each, a hundred stay well within what a
 * connection may leave unread (limits.ts), so none is taken from the inbox and then lost with the connection.
 */
export const INBOX_BATCH = 100;
