/** The client side of the cli socket: one connection, requests answered in order. */
import { connect, type Socket } from "node:net";
import {
  APPROVE_LINE,
  type FinalFrame,
  isFinalFrame,
  isPushFrame,
  LineSplitter,
  type ProgressFrame,
  type PushFrame,
  type ServerFrame,
  STOP_LINE,
  UNAUTHORIZED,
} from "@homeagent/cli-protocol";
import { HomeAgentError } from "../util/errors.js";

const OUT_OF_TURN = "/stop and /approve act on a message while it runs: type them at the interactive prompt";

/** Replies are not capped by the server, so the client allows far more than the 1 MiB request cap. */
const MAX_REPLY_BYTES = 256 * 1024 * 1024;

export class DaemonNotRunningError extends HomeAgentError {
  constructor(
    readonly socketPath: string,
    cause: unknown,
  ) {
    super({
      code: "daemon_not_running",
      message: `homed is not running (no socket at ${socketPath}): start it with \`npm start\` or \`homed\``,
      cause,
    });
  }
}

/**
 * The daemon closed the connection. `notice` is the reason it gave in a last frame that answered no request
 * (e.g. "homed is shutting down"); without one, the close came unannounced.
 */
export class ConnectionClosedError extends HomeAgentError {
  constructor(
    readonly notice?: string,
    cause?: unknown,
  ) {
    super({
      code: "connection_closed",
      message: notice
        ? `homed: ${notice}`
        : "the connection to homed closed unexpectedly (did the daemon stop or restart?)",
      cause,
    });
  }
}

/** The user gave up waiting (Ctrl-C); closing the connection makes homed cancel what it was asked. */
export class CancelledError extends HomeAgentError {
  constructor() {
    super({ code: "cancelled", message: "cancelled" });
  }
}

/** How the connection ended, unless this side closed it. `idle`: no request was waiting for its answer. */
export interface ConnectionLoss {
  error: Error;
  idle: boolean;
}

/** Sends `/auth <key>` first; throws saying whether the key was wrong or the daemon refused for another reason. */
async function authenticate(client: WaiterClient, apiKey: string): Promise<void> {
  const frame = await client.request(`/auth ${apiKey}`);
  if (frame.type !== "error") return;
  // Not every refusal is about the key: the daemon may be full or shutting down.
  throw frame.error === UNAUTHORIZED
    ? new HomeAgentError({
        code: "api_key_rejected",
        message: `homed rejected the API key (${frame.error}): check --api-key or HOMEAGENT_API_KEY`,
      })
    : new HomeAgentError({ code: "daemon_refused", message: `homed: ${frame.error}` });
}

/** A connection that has sent `/auth <key>` when a key is given; closed again if the key is refused. */
export async function connectAuthenticated(socketPath: string, apiKey: string | undefined): Promise<WaiterClient> {
  const client = await WaiterClient.connect(socketPath);
  try {
    if (apiKey) await authenticate(client, apiKey);
    return client;
  } catch (err) {
    client.close();
    throw err;
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
  private notice: string | undefined;
  private ended = false;
  private reportLoss: (loss: ConnectionLoss) => void = () => {};
  /** Settles when the connection is lost (never when close() ended it). */
  readonly lost: Promise<ConnectionLoss> = new Promise((resolve) => {
    this.reportLoss = resolve;
  });

  static connect(socketPath: string): Promise<WaiterClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(socketPath);
      const onError = (err: NodeJS.ErrnoException): void => {
        const notRunning = err.code === "ENOENT" || err.code === "ECONNREFUSED";
        reject(notRunning ? new DaemonNotRunningError(socketPath, err) : err);
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
      () =>
        this.fail(
          new HomeAgentError({
            code: "bad_frame",
            message: "homed sent a reply larger than 256 MiB, more than the waiter reads; the connection was closed",
          }),
        ),
    );
    socket.on("data", (chunk: Buffer) => splitter.push(chunk));
    socket.on("close", () => this.fail(new ConnectionClosedError(this.notice)));
    socket.on("error", (err: NodeJS.ErrnoException) => {
      // A reset after the daemon's last frame is still the daemon going away, for the reason it gave.
      const dropped = err.code === "ECONNRESET" || err.code === "EPIPE";
      this.fail(dropped ? new ConnectionClosedError(this.notice, err) : err);
    });
  }

  /** Frames that answer no request (notices, approvals): only an interactive connection is sent them. */
  onPush: (frame: PushFrame) => void = () => {};

  /** Sends a line that is answered out of turn, with no final frame (`/approve …`). */
  sendImmediate(line: string): void {
    if (!this.failure) this.socket.write(`${line.replace(/\r?\n/g, " ")}\n`);
  }

  /** Sends one line and resolves with its final frame; progress frames go to `onProgress` meanwhile. */
  request(line: string, onProgress: (frame: ProgressFrame) => void = () => {}): Promise<FinalFrame> {
    if (this.failure) return Promise.reject(this.failure);
    // Lines answered out of turn get no final frame: waiting for one would wait forever.
    if (line.trim() === STOP_LINE || APPROVE_LINE.test(line.trim())) {
      return Promise.resolve({ type: "error", error: OUT_OF_TURN });
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ onProgress, resolve, reject });
      // The protocol has no escaping: a newline would make the daemon see two messages and answer twice.
      this.socket.write(`${line.replace(/\r?\n/g, " ")}\n`);
    });
  }

  close(): void {
    this.ended = true;
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
    } catch (err) {
      this.fail(
        new HomeAgentError({
          code: "bad_frame",
          message: `homed sent something that is not a JSON frame: ${line.slice(0, 200)}`,
          cause: err,
        }),
      );
      this.socket.destroy();
      return;
    }
    if (isPushFrame(frame)) {
      this.onPush(frame);
      return;
    }
    const head = this.pending[0];
    if (!head) {
      // An error that answers no request is the daemon's notice of why it is about to close.
      if (frame.type === "error") this.notice = frame.error;
      return;
    }
    if (isFinalFrame(frame)) {
      this.pending.shift();
      head.resolve(frame);
    } else {
      head.onProgress(frame);
    }
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    const idle = this.pending.length === 0;
    for (const p of this.pending.splice(0)) p.reject(err);
    if (!this.ended) this.reportLoss({ error: err, idle });
  }
}
