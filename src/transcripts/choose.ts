/**
 * Flipping back to an earlier version of a turn (TranscriptsAPI.choose): the transcript keeps every version
 * of a turn asked again or edited, for the history; the context window keeps the version in use and stashes
 * the others exactly as they were (memory/window/context.ts). The kernel swaps the chosen one in between
 * turns (kernel/turn-versions.ts); then the transcript marks it chosen and the bus tells open dashboards.
 */
import type { Agent } from "../kernel/agent.js";
import { HomeAgentError } from "../util/errors.js";
import type { TranscriptStore } from "./store.js";

export async function chooseVersion(
  agent: Pick<Agent, "chooseVersion" | "bus">,
  store: Pick<TranscriptStore, "turn" | "chosen">,
  requestId: unknown,
  now: () => number = Date.now,
): Promise<{ chosenAt: number }> {
  if (typeof requestId !== "string" || !requestId || requestId.length > 64) {
    throw new HomeAgentError({ code: "invalid_argument", message: "requestId is the request id of a turn" });
  }
  const entry = store.turn(requestId);
  if (!entry) {
    throw new HomeAgentError({
      code: "not_found",
      message: `no turn with request id "${requestId}" in the transcripts (it may have expired or been forgotten): send the message as a new one`,
    });
  }
  await agent.chooseVersion(entry.channel, requestId);
  const chosenAt = now();
  // The window has it now; an entry that expired meanwhile just has nothing to mark.
  store.chosen(requestId, chosenAt);
  agent.bus.publish("system", "kernel", { kind: "version_chosen", channel: entry.channel, requestId, chosenAt });
  return { chosenAt };
}
