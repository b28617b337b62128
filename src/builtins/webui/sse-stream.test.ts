/**
 * The shared pull stream on its own: the stall rule (bytes waiting in the queue or the socket, none taken
 * for two heartbeats), the credentials re-check, and how each kind of end reaches the owner and the reader.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitFor } from "../../../test/fixtures/wait.js";
import { type SseSocket, SseStream, type StreamClose } from "./sse-stream.js";

const bytes = (n: number) => new Uint8Array(n);

/** A socket that holds `unsent` bytes for the client (change it to play a client that reads or not). */
function fakeSocket(unsent = 0): SseSocket & { unsent: number; destroyed: boolean } {
  return {
    unsent,
    destroyed: false,
    get writableLength() {
      return this.unsent;
    },
    destroy() {
      this.destroyed = true;
    },
  };
}

/** Counts heartbeats through the re-check, which every beat of an open stream asks. */
function beatCounter(): { beats: () => number; stillAuthorized: () => boolean } {
  let n = 0;
  return {
    beats: () => n,
    stillAuthorized: () => {
      n += 1;
      return true;
    },
  };
}

/** The stream's close, waited for with a timeout (its heartbeat timer alone does not keep the test alive). */
async function closeOf(stream: SseStream): Promise<StreamClose> {
  let close: StreamClose | undefined;
  void stream.closed.then((c) => {
    close = c;
  });
  await waitFor(() => close, "the stream to close");
  return close as StreamClose;
}

describe("SseStream", () => {
  it("cuts a client that took nothing for two heartbeats while bytes waited, destroying its socket", async () => {
    const socket = fakeSocket();
    const closes: StreamClose[] = [];
    const stream = new SseStream({ heartbeatMs: 5, socket, onClose: (c) => closes.push(c) });
    stream.push(bytes(10));
    const reader = stream.readable.getReader();
    await reader.read();
    stream.push(bytes(10));
    const close = await closeOf(stream);
    assert.equal(close.reason, "stalled");
    assert.match(close.reason === "stalled" ? close.error.message : "", /stopped reading: it took nothing/);
    assert.equal(socket.destroyed, true);
    assert.deepEqual(
      closes.map((c) => c.reason),
      ["stalled"],
      "the owner is told once",
    );
    assert.equal(stream.backlog, 0, "the queue is let go");
  });

  it("never cuts a client that keeps taking bytes, or one with nothing waiting", async () => {
    const draining = fakeSocket();
    const reading = beatCounter();
    const slow = new SseStream({ heartbeatMs: 5, socket: draining, stillAuthorized: reading.stillAuthorized });
    slow.push(bytes(50_000));
    slow.push(bytes(10));
    await slow.readable.getReader().read();
    // The socket got the first write and passes a little of it on at every beat.
    draining.unsent = 50_000;
    const drain = setInterval(() => {
      draining.unsent = Math.max(1, draining.unsent - 100);
    }, 2);
    const idle = beatCounter();
    const quiet = new SseStream({ heartbeatMs: 5, socket: fakeSocket(), stillAuthorized: idle.stillAuthorized });
    // A read waiting for frames that never come: the server's side of an idle stream.
    const waiting = quiet.readable.getReader().read();
    try {
      await waitFor(() => reading.beats() > 10 && idle.beats() > 10, "ten heartbeats of each");
    } finally {
      clearInterval(drain);
    }
    assert.equal(slow.isOpen, true);
    assert.equal(quiet.isOpen, true);
    slow.end();
    quiet.end();
    assert.equal((await waiting).done, true);
  });

  it("cuts a finished answer whose last bytes sit unread in the socket for two heartbeats", async () => {
    const socket = fakeSocket();
    const closes: StreamClose[] = [];
    const stream = new SseStream({ heartbeatMs: 5, socket, onClose: (c) => closes.push(c) });
    stream.push(bytes(100));
    stream.end();
    assert.equal(await new Response(stream.readable).text(), "\0".repeat(100));
    socket.unsent = 100;
    await waitFor(() => socket.destroyed, "the socket to be destroyed");
    assert.deepEqual(
      closes.map((c) => c.reason),
      ["ended"],
    );
  });

  it("ends cleanly, dropping what waits, once the credentials are gone", async () => {
    let authorized = true;
    const stream = new SseStream({ heartbeatMs: 5, stillAuthorized: () => authorized });
    stream.push(bytes(10));
    const reader = stream.readable.getReader();
    await reader.read();
    stream.push(bytes(10));
    stream.push(bytes(10));
    authorized = false;
    assert.equal((await closeOf(stream)).reason, "revoked");
    assert.equal((await reader.read()).done, true, "a clean end, not an error; nothing more was sent");
    assert.equal(stream.push(bytes(1)), false);
  });

  it("revoke() ends at once whatever waits, and settles a pull that was waiting", async () => {
    const stream = new SseStream();
    const reader = stream.readable.getReader();
    const pending = reader.read();
    stream.revoke();
    assert.equal((await pending).done, true);
    assert.equal((await stream.closed).reason, "revoked");
  });
});
