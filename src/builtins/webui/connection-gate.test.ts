/**
 * The connection gate (connection-gate.ts) over real sockets against a real daemon: connections that never
 * authenticate cannot lock keyed clients out — not 530 half-open ones with the real caps, not requests that
 * never finish — and over the pre-auth cap the oldest is cut; a new connection's first request has a shorter
 * deadline than the server's ordinary one. That deadline runs on a fake clock, moved by hand.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FakeClock } from "../../../test/fixtures/fake-clock.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { type RawSocket, rawSocket, startWebuiAlone, TEST_API_KEY } from "../../../test/fixtures/webui.js";
import { DEFAULT_LIMITS, MAX_CONNECTIONS, serverTimeouts } from "./limits.js";

describe("the connection gate", () => {
  test("half-open connections beyond the total cannot lock keyed clients out; they are cut before the header deadline", async () => {
    const { headersMs, firstHeadersMs } = serverTimeouts(DEFAULT_LIMITS);
    assert.ok(DEFAULT_LIMITS.maxPreAuthConnections < MAX_CONNECTIONS, "headroom for authenticated connections");
    assert.ok(firstHeadersMs <= 5000 && firstHeadersMs < headersMs, "a shorter deadline for a first request");
    // The real caps and deadlines; the first request's deadline runs on a clock moved by hand, the server's
    // ordinary header deadline on the real one.
    const clock = new FakeClock();
    const { daemon, port } = await startWebuiAlone({ listenAddr: "127.0.0.1:0", clock });
    const sockets: RawSocket[] = [];
    const closed = () => sockets.filter((s) => s.closed()).length;
    try {
      const count = MAX_CONNECTIONS + 18;
      // In batches, so the server accepts as they come and the kernel's accept queue never overflows.
      for (let opened = 0; opened < count; opened += 64) {
        await Promise.all(Array.from({ length: Math.min(64, count - opened) }, () => rawSocket(port, sockets)));
      }
      await waitFor(() => closed() >= count - MAX_CONNECTIONS, "the server to take in every connection");
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/status`, { headers: { "X-API-Key": TEST_API_KEY } });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      const took = performance.now() - started;
      assert.ok(took < 2000, `answered in ${Math.round(took)} ms`);
      assert.ok(closed() < count, "half-open connections were still open: the keyed request had room of its own");
      // The first deadline passing cuts them (a connection the server took in late is cut on the next move),
      // sooner than the ordinary header deadline would.
      await waitFor(
        () => {
          clock.advance(firstHeadersMs);
          return closed() === count;
        },
        "every half-open connection to be cut",
        { timeoutMs: headersMs - 1000 },
      );
    } finally {
      for (const s of sockets) s.socket.destroy();
      await daemon.stop();
    }
  });

  test("over the pre-auth cap the oldest unauthenticated connection is cut (503); an authenticated one never; a late first request is 408", async () => {
    const clock = new FakeClock();
    const { daemon, port } = await startWebuiAlone({
      listenAddr: "127.0.0.1:0",
      limits: { maxPreAuthConnections: 4 },
      timeouts: { firstHeadersMs: 1500 },
      clock,
    });
    const keyed = `GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-API-Key: ${TEST_API_KEY}\r\n\r\n`;
    const answers = (s: RawSocket) => s.received().match(/HTTP\/1\.1 200/g)?.length ?? 0;
    const sockets: RawSocket[] = [];
    try {
      const authed = await rawSocket(port, sockets);
      authed.socket.write(keyed);
      await waitFor(() => answers(authed) === 1, "the keyed request's answer");
      const oldest = await rawSocket(port, sockets);
      const rest: RawSocket[] = [];
      for (let i = 0; i < 4; i++) rest.push(await rawSocket(port, sockets));
      await waitFor(oldest.closed, "the oldest unauthenticated connection to make room");
      assert.match(oldest.received(), /^HTTP\/1\.1 503 .*"too_many_connections"/s);
      authed.socket.write(keyed);
      await waitFor(() => answers(authed) === 2, "the authenticated connection to keep serving");
      assert.ok(
        rest.every((s) => !s.closed()),
        "the rest are still waiting",
      );
      clock.advance(1500);
      await waitFor(() => rest.every((s) => s.closed()), "the rest to miss their first deadline");
      for (const s of rest) assert.match(s.received(), /^HTTP\/1\.1 408 .*"request_timeout"/s);
      assert.equal(authed.closed(), false);
    } finally {
      for (const s of sockets) s.socket.destroy();
      await daemon.stop();
    }
  });

  test("requests that never finish cannot make a keyed client's new connection the one cut", async () => {
    const { daemon, port } = await startWebuiAlone({ listenAddr: "127.0.0.1:0", limits: { maxPreAuthConnections: 4 } });
    const host = `127.0.0.1:${port}`;
    const sockets: RawSocket[] = [];
    try {
      // Logins whose bodies never come: requests in flight, before any authentication.
      const stuck: RawSocket[] = [];
      for (let i = 0; i < 3; i++) {
        const s = await rawSocket(port, sockets);
        s.socket.write(
          `POST /api/v1/login HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n`,
        );
        stuck.push(s);
      }
      const client = await rawSocket(port, sockets);
      await rawSocket(port, sockets);
      await waitFor(() => stuck[0].closed(), "the oldest pre-auth connection to be cut");
      assert.equal(client.closed(), false, "the newest connections are spared, busy or not");
      client.socket.write(`GET /api/v1/status HTTP/1.1\r\nHost: ${host}\r\nX-API-Key: ${TEST_API_KEY}\r\n\r\n`);
      await waitFor(() => /HTTP\/1\.1 200/.test(client.received()), "the keyed client's answer");
    } finally {
      for (const s of sockets) s.socket.destroy();
      await daemon.stop();
    }
  });
});
