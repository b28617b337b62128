/**
 * Notices a streamed answer whose client stopped reading: bytes wait for it and none were taken for two
 * intervals in a row (the rule the event stream applies to its clients too). Without it, a client that
 * keeps its connection open but never reads would hold that connection, and the rest of its answer,
 * for as long as it liked: the unread limit only ends a stream that is still growing.
 */

export interface StallProbe {
  /** Bytes written for the client and not yet sent to it. */
  waiting(): number;
  /** Bytes that have left for the client so far (grows only while it reads). */
  sent(): number;
}

/** Calls `onStall` once the client has taken nothing for two whole intervals; returns the stop function. */
export function watchStall(probe: StallProbe, intervalMs: number, onStall: () => void): () => void {
  let last = probe.sent();
  let idle = 0;
  const timer = setInterval(() => {
    const sent = probe.sent();
    if (sent !== last || probe.waiting() === 0) {
      last = sent;
      idle = 0;
      return;
    }
    if (++idle < 2) return;
    clearInterval(timer);
    onStall();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
