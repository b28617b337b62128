/**
 * Choosing an earlier version of a channel's last turn back (one whose reply was asked again, or whose
 * message was edited): the version comes into the context window in the place of the one there, in one
 * transaction, and memory withdraws what it had of the one that left and takes the chosen one as a turn that
 * just ended — so the model and the distiller again see exactly one version. The window keeps only the
 * version in use; the caller hands the chosen one over as it was recorded (the transcript keeps them all)
 * and says which turns are versions of it.
 */
import type { ToolResult } from "@homeagent/sdk";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { cleanWith, complete, type EventDeps, swapTurn, toolRecords } from "./turn-events.js";
import type { NewContextEvent } from "./types.js";

/** A version of a turn as it was recorded. */
export interface RecordedTurn {
  requestId: string;
  /** When it was asked (unix ms). */
  ts: number;
  source: string;
  channel: string;
  input: string;
  reply: string;
  /** Why it got no reply, when it got none. */
  error?: string;
  toolResults: Array<Pick<ToolResult, "name" | "content">>;
  noMemory: boolean;
}

/**
 * Puts `turn` in the place of its channel's last turn, which must be a version of it (`isVersion`); nothing
 * happens when it is that turn already. Refused ("invalid_argument") otherwise, saying why.
 */
export async function chooseVersion(
  deps: EventDeps,
  turn: RecordedTurn,
  isVersion: (requestId: string) => boolean,
): Promise<void> {
  const last = await deps.context.lastTurn(turn.channel);
  if (!last || !isVersion(last.requestId)) {
    throw new HomeAgentError({
      code: "invalid_argument",
      message: `only a version of channel "${turn.channel}"'s last turn still in the context window can be chosen; send the message as a new one`,
    });
  }
  if (last.requestId === turn.requestId) return;
  const event = await recordedEvent(deps, turn);
  const { id } = await swapTurn(deps, last.id, event);
  await deps.memory?.turnDone(turn.requestId, complete(id, event));
}

async function recordedEvent(deps: EventDeps, turn: RecordedTurn): Promise<NewContextEvent> {
  const channel = deps.inputs.get(turn.channel);
  const cleanInput = await cleanWith(channel?.cleaner, turn.input, (err) =>
    deps.warn(`the cleaner of input channel "${turn.channel}" failed, the raw input is used: ${errorMessage(err)}`),
  );
  return {
    ts: turn.ts,
    kind: "user",
    source: turn.source,
    channel: turn.channel,
    input: turn.input,
    requestId: turn.requestId,
    noMemory: turn.noMemory || channel?.noMemory === true,
    ...(cleanInput !== undefined ? { cleanInput } : {}),
    ...(turn.error !== undefined
      ? { unanswered: turn.error }
      : {
          response: turn.reply,
          toolsUsed: turn.toolResults.map((r) => r.name),
          toolResults: await toolRecords(deps, turn.toolResults),
        }),
  };
}
