/**
 * What ends a completion's turn early: the client going away (the request's signal, which
 * @hono/node-server aborts when the connection closes before the answer was written) or the time limit.
 */
import { SdkError } from "@homeagent/sdk";

export const CLIENT_GONE = "the HTTP client disconnected";

export interface TurnCancel {
  /** Passed to the kernel as InjectOptions.signal. */
  signal: AbortSignal;
  /** Resolves with the reason when limits.chatTimeoutMs passes first. */
  timedOut: Promise<Error>;
  abort(reason: Error): void;
  /** Clears the timer and the listener; call it when the request is over. */
  release(): void;
}

export function turnCancel(client: AbortSignal, timeoutMs: number): TurnCancel {
  const controller = new AbortController();
  const abort = (reason: Error): void => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onClientGone = (): void => abort(new SdkError({ code: "chat_cancelled", message: CLIENT_GONE }));
  if (client.aborted) onClientGone();
  else client.addEventListener("abort", onClientGone, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<Error>((resolve) => {
    timer = setTimeout(() => {
      const reason = new SdkError({
        code: "chat_timeout",
        message: `no answer within ${timeoutMs} ms (the web UI's chat time limit); the turn was cancelled — ask something shorter or try again`,
      });
      abort(reason);
      resolve(reason);
    }, timeoutMs);
  });
  return {
    signal: controller.signal,
    timedOut,
    abort,
    release: () => {
      clearTimeout(timer);
      client.removeEventListener("abort", onClientGone);
    },
  };
}
