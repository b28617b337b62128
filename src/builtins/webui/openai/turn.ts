/**
 * Starts the turn of one completion request. Completions are the client's conversation, not the daemon's:
 * unless `plugin.webui.openai_memory` is "true" (read at each request, so a change applies at once), a
 * request is transient — nothing of it enters the context window, the text log or long-term memory.
 * Either way the request's own messages are the turn's timeline (an empty history when it has none), so
 * a client never sees another channel's conversation.
 */
import type { AgentEvent, InjectOptions, InputReply } from "@homeagent/sdk";
import type { WebDeps } from "../context.js";
import type { DeltaRouter } from "./delta-router.js";
import type { CompletionRequest } from "./request.js";

export const OPENAI_SOURCE = "openai";
/** No output channel has this name: a sync input's reply goes to its caller, not to a channel. */
export const OPENAI_CHANNEL = "http";

export interface StartedTurn {
  requestId: string;
  reply: Promise<InputReply>;
  /** Stops routing this turn's events (call it when the request is over). */
  unwatch: () => void;
}

/**
 * Resolves as soon as the kernel has queued the input, so the caller can answer (and stream) while it
 * runs; rejects with the kernel's refusal (bad history, queue full) before anything was sent. `onEvent`
 * gets every event of the turn from the moment it is queued.
 */
export async function startTurn(
  deps: WebDeps,
  router: DeltaRouter,
  request: CompletionRequest,
  signal: AbortSignal,
  onEvent?: (event: AgentEvent) => void,
): Promise<StartedTurn> {
  let queued!: (requestId: string) => void;
  const isQueued = new Promise<string>((resolve) => {
    queued = resolve;
  });
  let unwatch = (): void => {};
  const remember = deps.sdk.settings.get("openai_memory") === "true";
  const opts: InjectOptions = {
    history: request.history,
    signal,
    onQueued: (requestId) => {
      if (onEvent) unwatch = router.watch(requestId, onEvent);
      queued(requestId);
    },
    ...(remember ? {} : { transient: true, noMemory: true }),
  };
  const reply = deps.sdk.injectInputSync(OPENAI_SOURCE, OPENAI_CHANNEL, request.input, opts);
  const requestId = await Promise.race([isQueued, reply.then((r) => r.requestId)]);
  return { requestId, reply, unwatch: () => unwatch() };
}
