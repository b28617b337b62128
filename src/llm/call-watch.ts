/**
 * The limits of one provider call and the one abort they share. A call has four clocks: the whole call,
 * from its start to the last byte; the first byte, from sending the request to the response headers (for a
 * stream, its first body bytes: the server is alive); for a stream, the first content, from sending the
 * request to the first text, reasoning or tool call; and the longest wait between body chunks once the
 * reply has begun — before content any bytes end a wait, after it only content does, so a server that
 * sends keep-alives (comments, empty deltas, pings) forever cannot hold a turn until the call deadline.
 * When one runs out the request is aborted and `expired` says which, so the provider can report it;
 * `close()` stops the clocks and drops a connection that is still open, whatever ended the call.
 */

import type { StreamChunk } from "../kernel/llm-spec.js";
import { HomeAgentError } from "../util/errors.js";
import { MAX_TIMER_MS } from "../util/time-limit.js";
import { DEFAULT_MAX_LINE_BYTES } from "./lines.js";
import { type CallLimit, ProviderTimeoutError } from "./provider.js";

export interface CallLimits {
  /** Give up when the headers (a stream: its first body bytes) have not arrived in this many ms; 0 = no limit. */
  firstByteTimeoutMs: number;
  /** Give up when a stream has carried no content this many ms after the request; 0 = no limit. */
  firstContentTimeoutMs: number;
  /**
   * Give up when a reply that has begun waits this many ms for its server: for any bytes until content
   * has come, then for new content; 0 = no limit.
   */
  idleTimeoutMs: number;
  /** Give up when the whole call, request to last byte, takes longer than this; 0 = no limit. */
  callTimeoutMs: number;
  /** Largest reply: a stream's text is cut here (the user is told); a larger whole body is an error. */
  maxResponseBytes: number;
  /** Largest line or event of a stream; a longer one fails the call. */
  maxLineBytes: number;
}

export const DEFAULT_CALL_LIMITS: Readonly<CallLimits> = {
  firstByteTimeoutMs: 60_000,
  // Gateways send comments while a reasoning model thinks; a legitimate first word can take minutes.
  firstContentTimeoutMs: 5 * 60_000,
  idleTimeoutMs: 60_000,
  callTimeoutMs: 10 * 60_000,
  maxResponseBytes: 4 * 1024 * 1024,
  maxLineBytes: DEFAULT_MAX_LINE_BYTES,
};

export class CallWatch {
  /** For fetch: aborted by the caller's signal, by an expired limit, or by close(). */
  readonly signal: AbortSignal;
  /** The limit that ended the call, if one did. */
  expired?: CallLimit;
  private readonly own = new AbortController();
  private firstByteTimer?: NodeJS.Timeout;
  private firstContentTimer?: NodeJS.Timeout;
  private readonly callTimer?: NodeJS.Timeout;
  private begun = false;
  private contentBegun = false;
  /** Time spent waiting on the server since the last content (once content has begun). */
  private waitedMs = 0;
  private readonly onCallerAbort = () => this.own.abort(this.caller?.reason);

  constructor(
    readonly limits: Pick<
      CallLimits,
      "firstByteTimeoutMs" | "firstContentTimeoutMs" | "idleTimeoutMs" | "callTimeoutMs"
    >,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.signal = this.own.signal;
    if (caller?.aborted) this.own.abort(caller.reason);
    else caller?.addEventListener("abort", this.onCallerAbort, { once: true });
    this.callTimer = this.clock("call", limits.callTimeoutMs);
  }

  /**
   * The request is going out: the first-byte clock starts, and for a stream the first-content clock
   * (preparing it, e.g. in Lua, does not count).
   */
  send(stream: boolean): void {
    clearTimeout(this.firstByteTimer);
    clearTimeout(this.firstContentTimer);
    this.firstByteTimer = this.clock("first_byte", this.limits.firstByteTimeoutMs);
    if (stream) this.firstContentTimer = this.clock("first_content", this.limits.firstContentTimeoutMs);
  }

  get callerAborted(): boolean {
    return this.caller?.aborted === true;
  }

  /** The reply has begun (a whole reply's headers, a stream's first bytes): from now on silences count. */
  begin(): void {
    clearTimeout(this.firstByteTimer);
    this.begun = true;
  }

  /**
   * A chunk of a stream, decoded. Only content is progress: it stops the first-content clock and the idle
   * clock starts over; keep-alives, empty deltas, role-only, usage-only and finish chunks change nothing.
   */
  progress(chunk: StreamChunk): void {
    if (!hasContent(chunk)) return;
    clearTimeout(this.firstContentTimer);
    this.contentBegun = true;
    this.waitedMs = 0;
  }

  /**
   * The body, read through the clocks: its first bytes begin the reply, and once it has begun, waiting on
   * the server longer than the idle limit (since the last bytes before content, since the last content
   * after) aborts the call. Only time spent waiting on the server counts, not time the consumer spends
   * between reads.
   */
  async *watch(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    const reads = body[Symbol.asyncIterator]();
    // Set once the body has ended or failed by itself; until then, stopping early must stop the body too.
    let over = false;
    try {
      for (;;) {
        const started = performance.now();
        const idle = this.begun ? this.clock("idle", this.idleLeft()) : undefined;
        let next: IteratorResult<Uint8Array>;
        try {
          over = true;
          next = await reads.next();
          over = next.done === true;
        } finally {
          clearTimeout(idle);
          this.waitedMs = this.contentBegun ? this.waitedMs + performance.now() - started : 0;
        }
        if (next.done) return;
        this.begin();
        yield next.value;
      }
    } finally {
      if (!over) await reads.return?.();
    }
  }

  /** The error for the limit that ended the call, if one did: it names the source and the setting to change. */
  timeoutError(source: string): ProviderTimeoutError | undefined {
    const { firstByteTimeoutMs, firstContentTimeoutMs, idleTimeoutMs, callTimeoutMs } = this.limits;
    switch (this.expired) {
      case undefined:
        return undefined;
      case "first_byte":
        return new ProviderTimeoutError("first_byte", `no response from ${source} within ${firstByteTimeoutMs} ms`);
      case "first_content":
        return new ProviderTimeoutError(
          "first_content",
          `${source} sent no text, reasoning or tool call within ${firstContentTimeoutMs} ms of the request; ` +
            "keep-alives and empty chunks do not count (core.llm.first_content_timeout)",
        );
      case "idle":
        return new ProviderTimeoutError(
          "idle",
          this.contentBegun
            ? `${source} sent no new content for ${idleTimeoutMs} ms in the middle of its reply, at most keep-alives (core.llm.stream_idle_timeout)`
            : `${source} sent nothing for ${idleTimeoutMs} ms in the middle of its reply (core.llm.stream_idle_timeout)`,
        );
      case "call":
        return new ProviderTimeoutError(
          "call",
          `${source} did not finish its reply within ${callTimeoutMs} ms (core.llm.call_timeout)`,
        );
    }
  }

  /** Ends the call: stops the clocks and drops the connection if it is still open. Safe to call twice. */
  close(): void {
    clearTimeout(this.firstByteTimer);
    clearTimeout(this.firstContentTimer);
    clearTimeout(this.callTimer);
    this.caller?.removeEventListener("abort", this.onCallerAbort);
    if (!this.own.signal.aborted) this.own.abort(new HomeAgentError({ code: "cancelled", message: "call finished" }));
  }

  /** What is left of the idle limit: all of it before content, less the waits since the last content after. */
  private idleLeft(): number {
    const { idleTimeoutMs } = this.limits;
    if (!(idleTimeoutMs > 0)) return 0;
    return Math.max(1, idleTimeoutMs - this.waitedMs);
  }

  // Config validation keeps durations within a timer's range; a direct caller might not, so clamp anyway.
  private clock(limit: CallLimit, ms: number): NodeJS.Timeout | undefined {
    if (!(ms > 0)) return undefined;
    return setTimeout(
      () => {
        if (this.own.signal.aborted) return;
        this.expired = limit;
        this.own.abort(new HomeAgentError({ code: `llm_${limit}_timeout`, message: `${limit} limit reached` }));
      },
      Math.min(ms, MAX_TIMER_MS),
    );
  }
}

/**
 * Text, reasoning, or a tool call's name or argument bytes: what a reply is made of. Text or reasoning of
 * white space alone is not: a server could keep a turn alive with one space a second. A real reply that is
 * indenting code sends more than white space long before the idle limit.
 */
function hasContent(chunk: StreamChunk): boolean {
  if (chunk.content.trim() !== "" || chunk.reasoning_content.trim() !== "") return true;
  return chunk.tool_calls.some((call) => call.name !== "" || call.raw_arguments !== "");
}
