/**
 * One client connection of the cli socket: the authentication gate, then an ordered queue of lines
 * answered strictly in arrival order, so a client can pipeline messages and match replies by position.
 *
 * The end of a client's input means "no more lines", not "gone": a client may half-close after sending
 * (`printf 'msg\n' | socat - UNIX:cli.sock`), and every line it sent is answered before this side ends.
 * Only a client that is really gone (the socket closes or errors) cancels what it asked for.
 *
 * It holds only what the limits allow: reading pauses while the queue is full or while the client is not
 * taking its replies (backpressure), the next line is not answered until the socket has drained, and when
 * the client goes everything it left behind (queue, partial lines, event routing, its running message) is
 * released at once.
 */
import type { Socket } from "node:net";
import {
  encodeFrame,
  type FinalFrame,
  LINE_TOO_LONG,
  LineSplitter,
  MAX_LINE_BYTES,
  type ProgressFrame,
  type PushFrame,
  type ServerFrame,
  SHUTTING_DOWN,
  UNAUTHORIZED,
} from "@homeagent/cli-protocol";
import { type PluginSDK, SdkError } from "@homeagent/sdk";
import { AUTHENTICATED, answer, verifyAuthLine } from "./answer.js";
import { closeWithFrame } from "./closing.js";
import type { RequestEvents } from "./events.js";
import { authTimeoutText, type ConnectionLimits } from "./limits.js";

export interface ConnectionStats {
  /** Lines read and not answered yet (the one being answered excluded). */
  pendingLines: number;
  /** Reply bytes the client has not taken yet. */
  unsentBytes: number;
  /** Input bytes held: unsplit data and a partial line. */
  bufferedInputBytes: number;
  readingPaused: boolean;
}

type Task = () => Promise<FinalFrame> | FinalFrame;

/** What the plugin does with a connection's lines beyond the messages and commands every client has. */
export interface ConnectionHooks {
  /** A line handled at once, outside the queue (an approval's answer while a turn waits for it); true if it was. */
  immediate(connection: CliConnection, line: string): boolean;
  /** A queued line that concerns this connection itself (`/interactive`); undefined for every other line. */
  command(connection: CliConnection, line: string): FinalFrame | undefined;
  closed(connection: CliConnection): void;
}

const SHUTDOWN_FRAME: FinalFrame = { type: "error", error: SHUTTING_DOWN };
/** Completes a last line the client sent without its newline. */
const NEWLINE = Buffer.from("\n");
/**
 * A zero-byte write sends nothing, yet fails with EPIPE once the client has closed entirely, which is
 * how a half-closed client that is still listening is told apart from one that has gone.
 */
const PROBE = Buffer.alloc(0);

export class CliConnection {
  private authenticated: boolean;
  private closed = false;
  /** Declared with `/interactive`: shown notices and approvals, and may answer approvals. */
  interactive = false;
  /** The client has half-closed: no more lines will come. */
  private inputEnded = false;
  private peerCheck: NodeJS.Timeout | undefined;
  /** When the client last sent something or was last answered (performance.now()). */
  private lastActive = performance.now();
  /** Closing: no new line is taken; queued ones are answered with the shutdown error. */
  private stopping = false;
  private readonly queue: Task[] = [];
  private serving = false;
  /** The loop that answers queued lines; settled when it has nothing left to do. */
  private served: Promise<void> = Promise.resolve();
  private unwatch = (): void => {};
  private readonly authTimer: NodeJS.Timeout | undefined;
  /** A client that goes away cancels what it asked for: queued messages are dropped, a running one stops. */
  private readonly gone = new AbortController();
  /** The message being answered, which `/stop` ends. */
  private current: AbortController | undefined;
  private readonly splitter: LineSplitter;
  private readonly closedPromise: Promise<void>;

  constructor(
    private readonly socket: Socket,
    private readonly sdk: PluginSDK,
    private readonly events: RequestEvents,
    private readonly limits: ConnectionLimits,
    private readonly hooks: ConnectionHooks,
  ) {
    this.authenticated = !sdk.auth.required();
    this.splitter = new LineSplitter(
      MAX_LINE_BYTES,
      (line) => this.onLine(line),
      () => this.onOversize(),
    );
    this.closedPromise = new Promise((resolve) => socket.once("close", () => resolve()));
    socket.on("data", this.onData);
    socket.on("drain", this.onDrain);
    socket.once("end", this.onEnd);
    socket.once("close", this.onClose);
    // A client that vanishes mid-write surfaces as EPIPE/ECONNRESET here; it must never reach the daemon.
    socket.on("error", () => {});
    if (!this.authenticated) {
      this.authTimer = setTimeout(() => this.refuse(authTimeoutText(limits.authTimeoutMs)), limits.authTimeoutMs);
      this.authTimer.unref();
    }
  }

  stats(): ConnectionStats {
    return {
      pendingLines: this.queue.length,
      unsentBytes: this.socket.writableLength,
      bufferedInputBytes: this.splitter.bufferedBytes,
      readingPaused: this.splitter.isPaused,
    };
  }

  /**
   * Since when this connection has been idle (nothing asked and unanswered, nothing unread), as a
   * performance.now() time; undefined while it is busy or closing.
   */
  idleSince(): number | undefined {
    const busy =
      this.serving || this.queue.length > 0 || this.splitter.bufferedBytes > 0 || this.socket.writableLength > 0;
    return busy || this.closed || this.stopping ? undefined : this.lastActive;
  }

  /** Closes the connection with `notice` as its last frame; only meant for an idle connection. */
  evict(notice: string): void {
    this.refuse(notice);
  }

  /**
   * Answers what is in hand (the running message; queued lines get the shutdown error), sends the
   * shutdown notice and ends the connection; after `closeGraceMs` it is cut off whatever its state.
   */
  async shutdown(): Promise<void> {
    if (this.closed) return;
    const timer = setTimeout(() => this.socket.destroy(), this.limits.closeGraceMs);
    timer.unref();
    if (!this.stopping) {
      this.stopTaking();
      await Promise.race([this.served, this.closedPromise]);
      closeWithFrame(this.socket, SHUTDOWN_FRAME, this.limits.closeGraceMs);
    }
    await this.closedPromise;
    clearTimeout(timer);
  }

  private readonly onData = (chunk: Buffer): void => {
    this.lastActive = performance.now();
    // While closing, input is read only to be dropped, so the client's last lines cannot stall the close.
    if (!this.stopping) this.splitter.push(chunk);
  };

  private readonly onEnd = (): void => {
    if (this.closed || this.stopping) return;
    this.inputEnded = true;
    // A client that sends no more lines can answer no approval: it is no longer asked.
    this.hooks.closed(this);
    this.splitter.push(NEWLINE);
    this.checkPeer();
    this.peerCheck = setInterval(this.checkPeer, this.limits.peerCheckMs);
    this.peerCheck.unref();
    this.endIfAnswered();
  };

  /** A client that has gone entirely makes this fail, which closes the socket and cancels its work. */
  private readonly checkPeer = (): void => {
    if (!this.socket.writableEnded && !this.socket.destroyed) this.socket.write(PROBE);
  };

  /** After a half-close: once every line has been answered, this side ends too. */
  private endIfAnswered(): void {
    if (!this.inputEnded || this.stopping || this.closed || this.serving) return;
    if (this.queue.length > 0 || this.splitter.bufferedBytes > 0) return;
    this.stopTaking();
    this.socket.end();
  }

  private readonly onDrain = (): void => {
    this.updateFlow();
    this.endIfAnswered();
  };

  private readonly onClose = (): void => {
    this.closed = true;
    clearTimeout(this.authTimer);
    clearInterval(this.peerCheck);
    this.queue.length = 0;
    this.splitter.clear();
    this.unwatch();
    this.unwatch = () => {};
    this.socket.off("data", this.onData);
    this.socket.off("drain", this.onDrain);
    this.gone.abort(new SdkError({ code: "cancelled", message: "cancelled: the cli client disconnected" }));
    this.hooks.closed(this);
  };

  private onLine(line: string): void {
    if (this.stopping || line.trim() === "") return;
    if (this.authenticated) {
      if (!this.hooks.immediate(this, line)) this.enqueue(() => this.hooks.command(this, line) ?? this.answer(line));
    } else if (verifyAuthLine(this.sdk, line)) {
      this.authenticated = true;
      clearTimeout(this.authTimer);
      this.send(AUTHENTICATED);
    } else this.refuse(UNAUTHORIZED);
  }

  private onOversize(): void {
    if (this.stopping) return;
    if (this.authenticated) this.enqueue(() => ({ type: "error", error: LINE_TOO_LONG }));
    else this.refuse(UNAUTHORIZED);
  }

  private async answer(line: string): Promise<FinalFrame> {
    // Its own signal, so `/stop` can end this message and leave the connection open; the client going
    // away ends it too.
    const current = new AbortController();
    const onGone = () => current.abort(this.gone.signal.reason);
    this.gone.signal.addEventListener("abort", onGone, { once: true });
    this.current = current;
    try {
      return await answer(this.sdk, line, current.signal, (requestId) => {
        this.unwatch = this.events.watch(requestId, this.sendProgress);
      });
    } finally {
      this.gone.signal.removeEventListener("abort", onGone);
      this.current = undefined;
      this.unwatch();
      this.unwatch = () => {};
    }
  }

  /** `/stop`: ends the message being answered (its LLM call, its tools, an approval it waits for). */
  stopRunning(): boolean {
    if (!this.current) return false;
    this.current.abort(new SdkError({ code: "cancelled", message: "stopped with /stop" }));
    return true;
  }

  private readonly sendProgress = (frame: ProgressFrame): void => this.send(frame);

  /** A frame that answers no line, for an interactive client; others are never sent one. */
  push(frame: PushFrame): void {
    if (this.interactive && !this.stopping) this.send(frame);
  }

  private enqueue(task: Task): void {
    this.queue.push(task);
    this.updateFlow();
    if (this.serving) return;
    this.serving = true;
    this.served = this.serve();
  }

  /** Answers queued lines one at a time, each only once the client has taken the previous replies. */
  private async serve(): Promise<void> {
    while (!this.closed) {
      if (this.socket.writableNeedDrain) {
        await this.drainedOrClosed();
        continue;
      }
      const task = this.queue.shift();
      if (!task) break;
      this.updateFlow();
      this.send(this.stopping ? SHUTDOWN_FRAME : await settle(task));
    }
    // Cleared in the same synchronous step as the empty-queue check, so no enqueue() can be missed.
    this.serving = false;
    this.lastActive = performance.now();
    this.endIfAnswered();
  }

  private drainedOrClosed(): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.socket.off("drain", done);
        this.socket.off("close", done);
        resolve();
      };
      this.socket.on("drain", done);
      this.socket.on("close", done);
    });
  }

  private send(frame: ServerFrame): void {
    if (this.closed || this.socket.destroyed) return;
    const unsent = this.socket.writableLength;
    if (unsent > this.limits.maxUnsentBytes) {
      this.sdk.log.warn(
        `cli: a client left ${unsent} bytes of replies unread (max ${this.limits.maxUnsentBytes}); disconnected it`,
      );
      this.socket.destroy();
      return;
    }
    if (!this.socket.write(encodeFrame(frame))) this.updateFlow();
  }

  /** Backpressure: read more lines only while the queue has room and the client takes its replies. */
  private updateFlow(): void {
    if (this.closed || this.stopping) return;
    if (this.queue.length >= this.limits.maxPendingLines || this.socket.writableNeedDrain) {
      this.splitter.pause();
      this.socket.pause();
    } else {
      this.socket.resume();
      this.splitter.resume();
    }
  }

  private stopTaking(): void {
    this.stopping = true;
    clearTimeout(this.authTimer);
    clearInterval(this.peerCheck);
    this.splitter.clear();
  }

  private refuse(error: string): void {
    if (this.stopping || this.closed) return;
    this.stopTaking();
    this.queue.length = 0;
    closeWithFrame(this.socket, { type: "error", error }, this.limits.closeGraceMs);
  }
}

/** A task that throws becomes an error frame, so later lines still run. */
async function settle(task: Task): Promise<FinalFrame> {
  try {
    return await task();
  } catch (err) {
    return { type: "error", error: err instanceof Error ? err.message : String(err) };
  }
}
