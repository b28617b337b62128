/**
 * A streaming completion: real token streaming, each of the turn's deltas sent as it is published. The
 * answer starts (200, the role chunk) once the kernel has queued the input, so refusals before that are
 * still plain JSON errors with their status; anything that goes wrong later (the turn failed, the time
 * limit passed) is a last `data: {"error": …}` line before `[DONE]`, as OpenAI does. How deltas become
 * text — resets, rounds before tool calls, a reply a stage rewrote — is stream-text.ts.
 */
import type { AgentEvent, InputReply } from "@homeagent/sdk";
import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import type { WebDeps, WebEnv } from "../context.js";
import { streamTie } from "../stream-tie.js";
import { turnCancel } from "./cancel.js";
import { ChunkLines, completionId, toUsage } from "./chunks.js";
import type { DeltaRouter } from "./delta-router.js";
import { errorBody, type OpenAIErrorBody } from "./errors.js";
import type { CompletionRequest } from "./request.js";
import { SseBody } from "./sse-body.js";
import { StreamText } from "./stream-text.js";
import { startTurn } from "./turn.js";

/** Stream bytes a client may leave unread before the stream is given up. */
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

export async function streamCompletion(
  c: Context<WebEnv>,
  deps: WebDeps,
  router: DeltaRouter,
  request: CompletionRequest,
): Promise<Response> {
  const lines = new ChunkLines(completionId(), Math.floor(Date.now() / 1000));
  const cancel = turnCancel(c.req.raw.signal, deps.limits.chatTimeoutMs);
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  // A stream opened with a session lives only as long as the session (logout, expiry, reset).
  const tie = streamTie(c, deps);
  // A stream given up on ends its turn and its connection: a client that stopped reading keeps no slot.
  const body = new SseBody(
    MAX_UNREAD_BYTES,
    (reason) => {
      cancel.abort(reason);
      outgoing?.destroy();
    },
    { socket: outgoing, heartbeatMs: deps.limits.sseHeartbeatMs, stillAuthorized: tie.stillAuthorized },
  );
  const content = new StreamText();
  const reasoning = new StreamText();
  const onEvent = (event: AgentEvent): void => {
    const p = event.payload;
    const text = typeof p.content === "string" ? p.content : "";
    if (event.type === "content_delta") body.write(lines.content(content.delta(text, p.reset === true)));
    else if (event.type === "reasoning_delta") body.write(lines.reasoning(reasoning.delta(text, p.reset === true)));
    else if (event.type === "agent_llm_chain" && Array.isArray(p.toolCalls) && p.toolCalls.length > 0) {
      content.boundary();
      reasoning.boundary();
    }
  };
  body.write(lines.role());
  let turn: Awaited<ReturnType<typeof startTurn>>;
  try {
    turn = await startTurn(deps, router, request, cancel.signal, onEvent);
  } catch (err) {
    cancel.release();
    throw err;
  }
  tie.hold(body.out);
  void Promise.race([turn.reply, cancel.timedOut])
    .then((outcome) =>
      end(
        body,
        lines,
        content,
        outcome instanceof Error ? errorBody("timeout", outcome.message, "server_error") : outcome,
      ),
    )
    .catch((err: unknown) => {
      deps.sdk.log.error(`openai: the stream of ${turn.requestId} failed: ${String(err)}`);
      end(body, lines, content, errorBody("internal_error", "internal error; see the daemon log", "server_error"));
    })
    .finally(() => {
      turn.unwatch();
      cancel.release();
    });
  return c.newResponse(body.readable, 200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    Connection: "keep-alive",
    "Transfer-Encoding": "chunked",
    "X-Accel-Buffering": "no",
    "X-HomeAgent-Request-Id": turn.requestId,
  });
}

/** The stream's last lines: the rest of the reply, finish, usage, [DONE] — or the error, then [DONE]. */
function end(body: SseBody, lines: ChunkLines, content: StreamText, outcome: InputReply | OpenAIErrorBody): void {
  if (body.isClosed) return;
  if (isErrorBody(outcome)) {
    body.write(lines.error(outcome));
  } else if (outcome.error) {
    body.write(lines.error(errorBody("turn_failed", `the turn failed: ${outcome.error}`, "server_error")));
  } else {
    body.write(lines.content(content.finish(outcome.content)));
    body.write(lines.finish());
    body.write(lines.usage(toUsage(outcome.usage)));
  }
  body.write(lines.done());
  body.close();
}

function isErrorBody(outcome: InputReply | OpenAIErrorBody): outcome is OpenAIErrorBody {
  return typeof outcome.error === "object";
}
