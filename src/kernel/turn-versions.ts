/**
 * Choosing an earlier version of a channel's last turn back (one whose reply was asked again, or whose
 * message was edited): the window swaps the version stashed when it was replaced — exactly as it was then,
 * after the input stages, with its NoMemory flags and tool results — for the one in use, in one transaction
 * (ContextWindow.choose; the distill candidates of both change in that transaction too). Memory then moves
 * the raw-log lines: the one that left loses its line, the chosen one gets its line back.
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
