/**
 * A non-streaming completion: the whole reply as one `chat.completion`, 504 when it takes longer than
 * limits.chatTimeoutMs (the turn is cancelled then), 502 when the turn failed (the LLM was unreachable,
 * …) with the kernel's reason as the message.
 */
import type { Context } from "hono";
import { ApiError, type WebDeps, type WebEnv } from "../context.js";
import { turnCancel } from "./cancel.js";
import { completionBody, completionId } from "./chunks.js";
import type { DeltaRouter } from "./delta-router.js";
import type { CompletionRequest } from "./request.js";
import { startTurn } from "./turn.js";

export async function completeOnce(
  c: Context<WebEnv>,
  deps: WebDeps,
  router: DeltaRouter,
  request: CompletionRequest,
): Promise<Response> {
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const cancel = turnCancel(c.req.raw.signal, deps.limits.chatTimeoutMs);
  try {
    const turn = await startTurn(deps, router, request, cancel.signal);
    const outcome = await Promise.race([turn.reply, cancel.timedOut]);
    if (outcome instanceof Error) throw new ApiError(504, "timeout", outcome.message);
    if (outcome.error) throw new ApiError(502, "turn_failed", `the turn failed: ${outcome.error}`);
    c.header("X-HomeAgent-Request-Id", turn.requestId);
    return c.json(completionBody(id, created, outcome));
  } finally {
    cancel.release();
  }
}
