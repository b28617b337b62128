/** How an approval ended, in the reader's language: for the Reminders section and the chat's approval cards. */
import type { Messages } from "./i18n";

const OUTCOMES = {
  once: "outcomeOnce",
  always: "outcomeAlways",
  remembered: "outcomeRemembered",
  denied: "outcomeDenied",
  timeout: "outcomeTimeout",
  no_client: "outcomeNoClient",
  cancelled: "outcomeCancelled",
  waiting: "outcomeWaiting",
} as const;

export function outcomeText(t: Messages, outcome: string): string {
  const key = OUTCOMES[outcome as keyof typeof OUTCOMES];
  return key ? t[key] : outcome;
}
