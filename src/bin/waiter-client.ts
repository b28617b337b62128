/** The client side of the cli socket: one connection, requests answered in order. */
import { connect, type Socket } from "node:net";
import {
  type FinalFrame,
  isFinalFrame,
  LineSplitter,
  type ProgressFrame,
  type ServerFrame,
} from "../builtins/cli/protocol.js";

/** Replies are not capped by the server, so the client allows far more than the 1 MiB request cap. */
const MAX_REPLY_BYTES = 256 * 1024 * 1024;

export class DaemonNotRunningError extends Error {
  constructor(readonly socketPath: string) {
    super(`homed is not running (no socket at ${socketPath}): start it with \`npm start\` or \`homed\``);
    this.name = "DaemonNotRunningError";
  }
}

export class ConnectionClosedError extends Error {
  constructor() {
    super("the connection to homed closed unexpectedly (did the daemon stop or restart?)");
    this.name = "ConnectionClosedError";
  }
}

/** The user gave up waiting (Ctrl-C); closing the connection makes homed cancel what it was asked. */
export class CancelledError extends Error {
  constructor() {
    super("cancelled");
    this.name = "CancelledError";
  }
}

interface Pending {
  onProgress: (frame: ProgressFrame) => void;
  resolve: (frame: FinalFrame) => void;
  reject: (err: Error) => void;
}

export class WaiterClient {
  private readonly pending: Pending[] = [];
  private failure: Error | null = null;

  static connect(socketPath: string): Promise<WaiterClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(socketPath);
      const onError = (err: NodeJS.ErrnoException): void => {
        const notRunning = err.code === "ENOENT" || err.code === "ECONNREFUSED";
        reject(notRunning ? new DaemonNotRunningError(socketPath) : err);
      };
      socket.once("error", onError);
      socket.once("connect", () => {
        socket.off("error", onError);
        resolve(new WaiterClient(socket));
      });
    });
  }

  private constructor(private readonly socket: Socket) {
    const splitter = new LineSplitter(
      MAX_REPLY_BYTES,
      (line) => this.onLine(line),
      () => this.fail(new Error("homed sent a reply larger than 256 MiB")),
    );
    socket.on("data", (chunk: Buffer) => splitter.push(chunk));
    socket.on("close", () => this.fail(new ConnectionClosedError()));
    socket.on("error", (err) => this.fail(err));
  }

  /** Sends one line and resolves with its final frame; progress frames go to `onProgress` meanwhile. */
  request(line: string, onProgress: (frame: ProgressFrame) => void = () => {}): Promise<FinalFrame> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.push({ onProgress, resolve, reject });
      // The protocol has no escaping: a newline would make the daemon see two messages and answer twice.
      this.socket.write(`${line.replace(/\r?\n/g, " ")}\n`);
    });
  }

  close(): void {
    this.socket.end();
  }

  /** Drops the connection at once: homed cancels every message of this connection, queued or running. */
  cancel(): void {
    this.fail(new CancelledError());
    this.socket.destroy();
  }

  get busy(): boolean {
    return this.pending.length > 0;
  }

  private onLine(line: string): void {
    let frame: ServerFrame;
    try {
      frame = JSON.parse(line) as ServerFrame;
    } catch {
      this.fail(new Error(`homed sent something that is not a JSON frame: ${line.slice(0, 200)}`));
      this.socket.destroy();
      return;
    }
    const head = this.pending[0];
    if (!head) return;
    if (isFinalFrame(frame)) {
      this.pending.shift();
      head.resolve(frame);
    } else {
      head.onProgress(frame);
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.splice(0)) p.reject(this.failure);
  }
}
