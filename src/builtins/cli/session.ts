/**
 * One client connection: authentication gate, then an ordered queue of lines. Lines are answered strictly
 * in the order they arrived, so a client can pipeline messages and match replies by position.
 */
import type { Socket } from "node:net";
import type { InputReply, PluginSDK } from "@homeagent/sdk";
import { runCommand } from "./commands.js";
import type { RequestEvents } from "./events.js";
import {
  encodeFrame,
  type FinalFrame,
  LINE_TOO_LONG,
  LineSplitter,
  MAX_LINE_BYTES,
  type ServerFrame,
  UNAUTHORIZED,
} from "./protocol.js";

export function serveConnection(socket: Socket, sdk: PluginSDK, events: RequestEvents): void {
  let authenticated = !sdk.auth.required();
  let closed = false;
  // A client that goes away cancels what it asked for: queued messages are dropped, a running one stops.
  const gone = new AbortController();
  let tail: Promise<void> = Promise.resolve();

  const send = (frame: ServerFrame): void => {
    if (!closed) socket.write(encodeFrame(frame));
  };
  const refuse = (): void => {
    send({ type: "error", error: UNAUTHORIZED });
    closed = true;
    socket.end();
  };
  // A task that throws becomes an error frame, so the chain never rejects and later lines still run.
  const enqueue = (task: () => Promise<FinalFrame> | FinalFrame): void => {
    tail = tail.then(async () => {
      if (closed) return;
      try {
        send(await task());
      } catch (err) {
        send({ type: "error", error: errorMessage(err) });
      }
    });
  };

  const onLine = (line: string): void => {
    if (closed || line.trim() === "") return;
    if (authenticated) enqueue(() => answer(sdk, events, line, send, gone.signal));
    else if (verifyAuthLine(sdk, line)) {
      authenticated = true;
      send(AUTHENTICATED);
    } else refuse();
  };
  const onOversize = (): void => {
    if (closed) return;
    if (authenticated) enqueue(() => ({ type: "error", error: LINE_TOO_LONG }));
    else refuse();
  };

  const splitter = new LineSplitter(MAX_LINE_BYTES, onLine, onOversize);
  socket.on("data", (chunk: Buffer) => splitter.push(chunk));
  socket.on("close", () => {
    closed = true;
    gone.abort(new Error("cancelled: the cli client disconnected"));
  });
  // A client that vanishes mid-write surfaces as EPIPE/ECONNRESET here; it must never reach the daemon.
  socket.on("error", () => {});
}

const AUTHENTICATED: FinalFrame = { type: "response", content: "authenticated" };
const UNAUTHORIZED_FRAME: FinalFrame = { type: "error", error: UNAUTHORIZED };

function isAuthLine(line: string): boolean {
  return /^\/auth(\s|$)/.test(line);
}

/** Without a configured key any `/auth` line is accepted, so clients can always send one. */
function verifyAuthLine(sdk: PluginSDK, line: string): boolean {
  if (!isAuthLine(line)) return false;
  return !sdk.auth.required() || sdk.auth.verify(line.slice("/auth".length).trim());
}

function answer(
  sdk: PluginSDK,
  events: RequestEvents,
  line: string,
  send: (frame: ServerFrame) => void,
  signal: AbortSignal,
): Promise<FinalFrame> | FinalFrame {
  if (isAuthLine(line)) return verifyAuthLine(sdk, line) ? AUTHENTICATED : UNAUTHORIZED_FRAME;
  if (line.startsWith("/")) return runCommand(sdk, line);
  return chat(sdk, events, line, send, signal);
}

async function chat(
  sdk: PluginSDK,
  events: RequestEvents,
  text: string,
  send: (frame: ServerFrame) => void,
  signal: AbortSignal,
): Promise<FinalFrame> {
  let stopWatching = (): void => {};
  try {
    const reply = await sdk.injectInputSync("cli", "cli", text, {
      signal,
      onQueued: (requestId) => {
        stopWatching = events.watch(requestId, send);
      },
    });
    return reply.error ? { type: "error", error: reply.error } : responseFrame(reply);
  } finally {
    stopWatching();
  }
}

function responseFrame(reply: InputReply): FinalFrame {
  const frame: FinalFrame = { type: "response", content: reply.content };
  if (reply.reasoningContent) frame.reasoning_content = reply.reasoningContent;
  if (reply.usage) frame.usage = reply.usage;
  return frame;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
