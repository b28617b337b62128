/** Ending a cli connection so the client reads the last frame, without letting the client hold it open. */
import type { Socket } from "node:net";
import { encodeFrame, type ServerFrame } from "@homeagent/cli-protocol";

/**
 * Sends `frame` and ends the socket. It is destroyed as soon as the frame is flushed, or after `graceMs`
 * when the client does not read: a client must never keep a descriptor of the daemon open.
 */
export function closeWithFrame(socket: Socket, frame: ServerFrame, graceMs: number): void {
  if (socket.destroyed) return;
  // A client that vanishes mid-write surfaces as EPIPE/ECONNRESET; it must never reach the daemon.
  if (socket.listenerCount("error") === 0) socket.on("error", () => {});
  const timer = setTimeout(() => socket.destroy(), graceMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  // Whatever the client still sends is read and dropped, so it cannot pile up while the frame goes out.
  socket.resume();
  socket.end(encodeFrame(frame), () => socket.destroy());
}
