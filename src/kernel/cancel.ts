/** The user-facing text of why a turn stopped: the abort reason's own message, unless it has none to tell. */
export function stopMessage(reason: unknown): string {
  if (reason instanceof Error && reason.name !== "AbortError") return reason.message;
  return typeof reason === "string" && reason ? reason : "cancelled before it was answered";
}
