/**
 * Flipping back to an earlier version of a turn (TranscriptsAPI.choose): the transcript keeps every version
 * of a turn asked again or edited, the context window only the one in use. The chosen version is handed to
 * the kernel as recorded, the kernel swaps it into the window between turns (kernel/turn-versions.ts), and
 * then the transcript marks it chosen and the bus tells open dashboards.
 */
import type { TranscriptEntry } from "@homeagent/sdk";
import type { Agent } from "../kernel/agent.js";
import type { RecordedTurn } from "../kernel/turn-versions.js";
import { HomeAgentError } from "../util/errors.js";
import type { TranscriptStore } from "./store.js";

export async function chooseVersion(
  agent: Pick<Agent, "chooseVersion" | "bus">,
  store: Pick<TranscriptStore, "turn" | "firstVersion" | "chosen">,
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
      message: `no turn with request id "${requestId}" in the transcripts (it may have expired): send the message as a new one`,
    });
  }
  if (entry.status === "running") {
    throw new HomeAgentError({ code: "invalid_argument", message: "that turn is still running: wait for its reply" });
  }
  const first = store.firstVersion(requestId);
  await agent.chooseVersion(recorded(entry, requestId), (id) => store.firstVersion(id) === first);
  const chosenAt = now();
  store.chosen(requestId, chosenAt);
  agent.bus.publish("system", "kernel", { kind: "version_chosen", channel: entry.channel, requestId, chosenAt });
  return { chosenAt };
}

/** A transcript entry as the kernel takes a version back: its input, its reply or why it had none, its tools' results. */
function recorded(e: TranscriptEntry, requestId: string): RecordedTurn {
  return {
    requestId,
    ts: e.ts,
    source: e.source,
    channel: e.channel,
    input: e.input,
    reply: e.reply,
    ...(e.status === "done" ? {} : { error: e.error ?? `the turn ended ${e.status}` }),
    toolResults: e.items.flatMap((i) => (i.type === "tool" ? [{ name: i.name, content: i.result ?? "" }] : [])),
    noMemory: e.noMemory,
  };
}
