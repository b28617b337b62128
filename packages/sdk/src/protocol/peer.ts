/**
 * RpcPeer: JSON-RPC 2.0 over newline-delimited frames, symmetric, because both the daemon and a plugin
 * send requests. Everything that could grow is bounded: frames (1 MiB), requests served at once, bytes
 * waiting to be written to a peer that stopped reading; every call can carry a deadline, and a closed peer
 * fails every call at once instead of leaving it waiting.
 */
import type { Writable } from "node:stream";
import { placeAttachments } from "./attachments.js";
import { encodeFrame, type Frame, type FrameEvent, FrameReader, frameHead, MAX_FRAME_BYTES } from "./framing.js";
import { type RequestContext, Serving } from "./request-context.js";
import {
  fromWireError,
  RPC_CLOSED,
  RPC_DEADLINE,
  RPC_FAILED,
  RPC_FRAME_TOO_LARGE,
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RpcError,
  toWireError,
  type WireError,
} from "./rpc-error.js";

export interface RpcPeerOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Serves one incoming request: its (awaited) value is the result; a throw becomes the error response. */
  onRequest(method: string, params: unknown, ctx: RequestContext): unknown;
  onNotification?(method: string, params: unknown): void;
  /** Malformed, oversized or unexpected lines: one short message each. */
  onProtocolError?(message: string): void;
  maxFrameBytes?: number;
  /** Incoming requests served at once; more are refused until some finish. Default 256. */
  maxConcurrent?: number;
  /** Bytes queued for a peer that does not read; beyond this, sends fail. Default 16 MiB. */
  maxQueuedBytes?: number;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Pending {
  method: string;
  resolve(value: unknown): void;
  reject(err: RpcError): void;
  cleanup(): void;
}

type Message = Record<string, unknown>;

/** Late answers expected at most: one per call given up on, for this many recent calls. */
const MAX_ABANDONED = 1024;

export class RpcPeer {
  private nextId = 1;
  private readonly pendingCalls = new Map<number, Pending>();
  private readonly serving = new Map<number | string, Serving>();
  private closedReason: string | undefined;
  /** Ids of calls given up on, whose late answers are dropped quietly; the oldest are forgotten first. */
  private readonly abandoned = new Set<number>();
  private readonly maxFrame: number;
  private readonly maxConcurrent: number;
  private readonly maxQueued: number;
  /**
   * Whether the other side reads attachments (it said so in the handshake): long strings are then sent as
   * such instead of inside the JSON. Received attachments are read either way.
   */
  sendAttachments = false;

  constructor(private readonly opts: RpcPeerOptions) {
    this.maxFrame = opts.maxFrameBytes ?? MAX_FRAME_BYTES;
    this.maxConcurrent = opts.maxConcurrent ?? 256;
    this.maxQueued = opts.maxQueuedBytes ?? 16 * 1024 * 1024;
    const reader = new FrameReader((event) => this.receive(event), this.maxFrame);
    opts.input.on("data", (chunk: Buffer | string) => {
      if (!this.closed) reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    });
    opts.input.on("end", () => {
      reader.end();
      this.close("the other side closed the connection");
    });
    opts.output.on("error", (err: Error) => this.close(`cannot write to the other side: ${err.message}`));
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  get pending(): number {
    return this.pendingCalls.size;
  }

  call<T = unknown>(method: string, params?: unknown, opts: CallOptions = {}): Promise<T> {
    if (this.closedReason !== undefined) return Promise.reject(closedError(this.closedReason));
    if (opts.signal?.aborted) return Promise.reject(cancelled(method, opts.signal));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => this.abandon(id, cancelled(method, opts.signal as AbortSignal));
      const pending: Pending = {
        method,
        resolve: resolve as (value: unknown) => void,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          opts.signal?.removeEventListener("abort", onAbort);
        },
      };
      // Registered before the write: over an in-process stream the answer can arrive within write().
      this.pendingCalls.set(id, pending);
      const failure = this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
      if (failure) {
        this.pendingCalls.delete(id);
        reject(failure);
        return;
      }
      if (opts.timeoutMs !== undefined) {
        const ms = opts.timeoutMs;
        timer = setTimeout(
          () => this.abandon(id, new RpcError(RPC_DEADLINE, `${method} got no answer within ${ms} ms`)),
          ms,
        );
      }
      opts.signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.closedReason !== undefined) return;
    const failure = this.send({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) });
    if (failure) this.opts.onProtocolError?.(`notification ${method} not sent: ${failure.message}`);
  }

  /** Fails every waiting call with `reason` and aborts the requests being served; later calls fail at once. */
  close(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const [id, pending] of this.pendingCalls) {
      this.pendingCalls.delete(id);
      pending.cleanup();
      pending.reject(closedError(reason));
    }
    for (const request of this.serving.values()) request.cancel(closedError(reason));
    this.serving.clear();
  }

  /** Gives up on a call of ours: the caller is answered now, and the other side is told to stop working on it. */
  private abandon(id: number, err: RpcError): void {
    const pending = this.pendingCalls.get(id);
    if (!pending) return;
    this.pendingCalls.delete(id);
    this.remember(id);
    pending.cleanup();
    pending.reject(err);
    this.notify("$/cancel", { id });
  }

  private remember(id: number): void {
    this.abandoned.add(id);
    if (this.abandoned.size > MAX_ABANDONED) {
      const oldest = this.abandoned.values().next().value;
      if (oldest !== undefined) this.abandoned.delete(oldest);
    }
  }

  /** Writes one message; returns why it could not be sent, if so. */
  private send(message: Message): RpcError | undefined {
    let frame: Frame | null;
    try {
      frame = encodeFrame(message, this.maxFrame, this.sendAttachments);
    } catch (err) {
      // A BigInt, a cycle, a value nested too deep: nothing was written.
      const why = err instanceof Error ? err.message : String(err);
      return new RpcError(RPC_INVALID_PARAMS, `message cannot be sent as JSON: ${why}`);
    }
    if (frame === null) {
      return new RpcError(RPC_FRAME_TOO_LARGE, `message over the ${this.maxFrame}-byte frame limit; send less`);
    }
    const queued = (this.opts.output as { writableLength?: number }).writableLength ?? 0;
    if (queued > this.maxQueued) {
      return new RpcError(RPC_FAILED, `the other side is not reading its input (${queued} bytes waiting)`, {
        code: "peer_not_reading",
      });
    }
    const output = this.opts.output as NodeJS.WritableStream & Partial<Pick<Writable, "cork" | "uncork">>;
    if (frame.attachments.length === 0) {
      output.write(frame.text);
      return undefined;
    }
    // One write to the pipe for the whole frame, so the other side wakes up once, to all of it.
    output.cork?.();
    output.write(frame.text);
    for (const text of frame.attachments) output.write(text);
    output.uncork?.();
    return undefined;
  }

  private receive(event: FrameEvent): void {
    if (event.kind === "oversized") {
      this.refuseOversized(event.head, event.bytes);
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(event.text);
    } catch {
      this.opts.onProtocolError?.(`skipped a line that is not JSON: ${event.text.slice(0, 200)}`);
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      this.opts.onProtocolError?.(`skipped a line that is not a JSON-RPC object: ${event.text.slice(0, 200)}`);
      return;
    }
    const msg = message as Message;
    const misplaced = event.attachments && placeAttachments(msg, event.attachments);
    if (misplaced) {
      this.opts.onProtocolError?.(`skipped a message: ${misplaced}: ${event.text.slice(0, 200)}`);
      return;
    }
    if (msg.jsonrpc !== "2.0") {
      this.opts.onProtocolError?.(`skipped a message without "jsonrpc":"2.0": ${event.text.slice(0, 200)}`);
      return;
    }
    if (typeof msg.method === "string") {
      if (msg.id === undefined || msg.id === null) this.notified(msg.method, msg.params);
      else void this.serve(msg.id, msg.method, msg.params);
      return;
    }
    if (msg.method !== undefined) {
      // Neither a request nor an answer: taken for an answer, it could complete a waiting call with nothing.
      const id = msg.id;
      if (typeof id === "number" || typeof id === "string") {
        this.reply(id, { error: { code: RPC_INVALID_REQUEST, message: '"method" must be a string' } });
      }
      this.opts.onProtocolError?.(`skipped a message whose method is not a string: ${event.text.slice(0, 200)}`);
      return;
    }
    this.answered(msg, event.text);
  }

  private refuseOversized(head: string, bytes: number): void {
    const { id: parsedId, method } = frameHead(head);
    const what = `a ${bytes}-byte line (over the ${this.maxFrame}-byte frame limit) was dropped`;
    this.opts.onProtocolError?.(`${what}${parsedId === undefined ? "" : ` (id ${parsedId})`}`);
    if (parsedId !== undefined && method) {
      this.reply(parsedId, { error: { code: RPC_FRAME_TOO_LARGE, message: `${what}; send less, e.g. page it` } });
      return;
    }
    const pending = typeof parsedId === "number" ? this.pendingCalls.get(parsedId) : undefined;
    if (pending && typeof parsedId === "number") {
      this.pendingCalls.delete(parsedId);
      pending.cleanup();
      pending.reject(new RpcError(RPC_FRAME_TOO_LARGE, `the answer to ${pending.method} was too large: ${what}`));
    }
  }

  private notified(method: string, params: unknown): void {
    if (method === "$/cancel") {
      const id = (params as { id?: number | string } | undefined)?.id;
      if (id !== undefined) this.serving.get(id)?.cancel(new RpcError(RPC_FAILED, "cancelled by the caller"));
      return;
    }
    try {
      this.opts.onNotification?.(method, params);
    } catch (err) {
      this.opts.onProtocolError?.(`notification ${method} failed: ${err instanceof Error ? err.message : err}`);
    }
  }

  private async serve(id: unknown, method: string, params: unknown): Promise<void> {
    if (typeof id !== "number" && typeof id !== "string") {
      this.opts.onProtocolError?.(`skipped a request with an invalid id: ${JSON.stringify(id)}`);
      return;
    }
    if (this.serving.has(id)) {
      this.reply(id, { error: { code: RPC_INVALID_REQUEST, message: `request id ${id} is already in use` } });
      return;
    }
    if (this.serving.size >= this.maxConcurrent) {
      const message = `too many requests at once (${this.maxConcurrent}); wait for answers before sending more`;
      this.reply(id, { error: { code: RPC_FAILED, message, data: { code: "rpc_busy" } } });
      return;
    }
    const request = new Serving(id);
    this.serving.set(id, request);
    try {
      const result = await this.opts.onRequest(method, params, request);
      if (this.serving.get(id) !== request) return;
      this.reply(id, { result: result === undefined ? null : result });
    } catch (err) {
      if (this.serving.get(id) !== request) return;
      this.reply(id, { error: toWireError(err) });
    } finally {
      if (this.serving.get(id) === request) this.serving.delete(id);
    }
  }

  private reply(id: number | string, body: { result: unknown } | { error: WireError }): void {
    if (this.closedReason !== undefined) return;
    const failure = this.send({ jsonrpc: "2.0", id, ...body });
    if (!failure) return;
    const fallback = this.send({ jsonrpc: "2.0", id, error: { code: failure.rpcCode, message: failure.message } });
    if (fallback) this.opts.onProtocolError?.(`answer to request ${id} not sent: ${fallback.message}`);
  }

  private answered(msg: Message, text: string): void {
    const id = msg.id;
    const pending = typeof id === "number" ? this.pendingCalls.get(id) : undefined;
    if (!pending || typeof id !== "number") {
      // The other side may still answer a call we gave up on (cancelled, past its deadline): expected, not noise.
      if (typeof id === "number" && this.abandoned.delete(id)) return;
      this.opts.onProtocolError?.(`skipped an answer to no waiting call: ${text.slice(0, 200)}`);
      return;
    }
    this.pendingCalls.delete(id);
    pending.cleanup();
    if (msg.error !== undefined && msg.error !== null) pending.reject(fromWireError(msg.error));
    else pending.resolve(msg.result);
  }
}

function closedError(reason: string): RpcError {
  return new RpcError(RPC_CLOSED, reason, { code: "peer_closed" });
}

function cancelled(method: string, signal: AbortSignal): RpcError {
  const why = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? "aborted");
  return new RpcError(RPC_FAILED, `${method} was cancelled: ${why}`, { code: "cancelled" });
}
