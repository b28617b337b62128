/**
 * Headroom for authenticated clients. The server holds at most MAX_CONNECTIONS at once; without this, anyone
 * who can reach the port could hold all of them with connections that send nothing, and lock the dashboard
 * and every API client out until the header deadline. So a connection counts as pre-auth until one of its
 * requests passes auth (API key or session), and pre-auth ones are held to a cap below the total: over it the
 * oldest is cut. A connection that has sent no complete request yet must also send one sooner than the
 * server's ordinary header deadline.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import type { HttpBindings, ServerType } from "@hono/node-server";
import type { MiddlewareHandler } from "hono";
import type { WebEnv } from "./context.js";

export interface GateLimits {
  /** Pre-auth connections held at once. */
  maxPreAuth: number;
  /** How long a new connection may take to send its first request's headers. */
  firstHeadersMs: number;
}

interface PreAuth {
  /** Set until the first request's headers are in. */
  timer: unknown;
}

/** Answers for a connection cut before it sent a whole request: it then learns why, like Node's own 408. */
const TOO_MANY = answer(
  "503 Service Unavailable",
  "too_many_connections",
  "too many connections are waiting to authenticate and this was the oldest; retry",
);
const TOO_SLOW = answer(
  "408 Request Timeout",
  "request_timeout",
  "the request headers did not arrive in time; send the whole request at once",
);

/**
 * The timers the gate's first-request deadlines run on (the daemon's Clock has this shape; a built-in plugin
 * imports no daemon code, so it declares what it needs). Tests pass a clock they move by hand.
 */
export interface GateClock {
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

const systemTimers: GateClock = {
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class ConnectionGate {
  /** In arrival order, so the first entry is the oldest. */
  private readonly preAuth = new Map<Socket, PreAuth>();

  /** `clock` runs the first-request deadlines (tests move its time by hand). */
  constructor(
    private readonly limits: GateLimits,
    private readonly clock: GateClock = systemTimers,
  ) {}

  attach(server: ServerType): void {
    const http = server as Server;
    http.on("connection", (socket: Socket) => this.admit(socket));
    http.on("request", (req) => {
      const state = this.preAuth.get(req.socket);
      if (!state) return;
      if (state.timer !== undefined) this.clock.clearTimer(state.timer);
      state.timer = undefined;
    });
  }

  /** Runs after auth: a request that passed it frees its connection from the cap and the first deadline. */
  readonly afterAuth: MiddlewareHandler<WebEnv> = async (c, next) => {
    const socket = (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket;
    if (socket && c.get("authKind") !== "none") this.release(socket);
    await next();
  };

  private admit(socket: Socket): void {
    if (this.preAuth.size >= this.limits.maxPreAuth) this.evictOne();
    // The system clock's timers are unref'd: a connection waiting for its first request keeps no process alive.
    const timer = this.clock.setTimer(() => cut(socket, TOO_SLOW), this.limits.firstHeadersMs);
    this.preAuth.set(socket, { timer });
    socket.once("close", () => this.release(socket));
  }

  /** Takes the connection off the pre-auth list: it is authenticated, cut or gone. */
  private release(socket: Socket): void {
    const timer = this.preAuth.get(socket)?.timer;
    if (timer !== undefined) this.clock.clearTimer(timer);
    this.preAuth.delete(socket);
  }

  /**
   * The oldest pre-auth connection, whatever it is doing: sparing the busy ones let a flood of requests that
   * never finish (a login whose body never comes) make a keyed client's brand-new connection the victim.
   */
  private evictOne(): void {
    const victim = this.preAuth.entries().next().value;
    if (!victim) return;
    const [socket, state] = victim;
    this.release(socket);
    // Only one that has sent nothing whole is owed an answer; an idle keep-alive one just closes, as usual.
    if (state.timer !== undefined) cut(socket, TOO_MANY);
    else socket.destroy();
  }
}

function cut(socket: Socket, text: string): void {
  if (socket.writable) socket.write(text);
  socket.destroy();
}

/** A whole HTTP answer in the server's one error shape, `{error: {code, message}}`. */
function answer(status: string, code: string, message: string): string {
  const body = JSON.stringify({ error: { code, message } });
  const head = `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}`;
  return `${head}\r\n\r\n${body}`;
}
