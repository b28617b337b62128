/**
 * Choosing an earlier version of a channel's last turn back (one whose reply was asked again, or whose
 * message was edited): the window swaps the version stashed when it was replaced — exactly as it was then,
 * after the input stages, with its NoMemory flags and tool results — for the one in use, in one transaction
 * (ContextWindow.choose). Memory withdraws what it had of the one that left and takes back the chosen one:
 * its raw-log line, and its distill candidate if it was still waiting when it was replaced.
 */
import type { EventDeps } from "./turn-events.js";

export async function chooseVersion(
  deps: Pick<EventDeps, "context" | "memory">,
  channel: string,
  requestId: string,
): Promise<void> {
  const swapped = await deps.context.choose(channel, requestId);
  if (!swapped) return;
  await deps.memory?.superseded?.(swapped.replaced);
  await deps.memory?.restored?.(swapped.chosen);
}
