/**
 * Streaming clients that go away or stop reading: the stream is given up, the turn cancelled and the
 * connection cut (as the server sees it, whatever the client does), nothing of the request left in the
 * route's delta router. The stall rule itself is tested on the shared stream (../sse-stream.test.ts).
 */
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { afterEach, describe, test } from "node:test";
import { createMockSDK, type MockResponder } from "@homeagent/sdk/test";
import { waitFor } from "../../../../test/fixtures/wait.js";
import { type RoutesServer, serveRoutes, TEST_LIMITS } from "../../../../test/fixtures/webui-routes.js";
import { DeltaRouter } from "./delta-router.js";
import { openaiRoutes } from "./routes.js";

/** Every DeltaRouter that watched a request, so a test can see they let go of it. */
const routers = new Set<DeltaRouter>();
const watch = DeltaRouter.prototype.watch;
DeltaRouter.prototype.watch = function (this: DeltaRouter, ...args: Parameters<DeltaRouter["watch"]>) {
  routers.add(this);
  return watch.apply(this, args);
};
const watched = () => [...routers].reduce((n, r) => n + r.size, 0);

let server: RoutesServer | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close();
  server = undefined;
});

/** Sends a streaming completion and then never reads a byte of the answer. */
async function stalledCompletion(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.on("error", () => {});
  const body = JSON.stringify({ stream: true, messages: [{ role: "user", content: "talk a lot" }] });
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.pause();
  return socket;
}

/** A turn that keeps streaming 256 KiB deltas until it is cancelled. */
const endless: MockResponder = (input, sdk) =>
  new Promise((resolve) => {
    const piece = "x".repeat(256 * 1024);
    const pump = () => {
      const signal = input.opts?.signal;
      if (signal?.aborted) return resolve({ error: (signal.reason as Error).message });
      sdk.emit("content_delta", { requestId: input.requestId, content: piece });
      setImmediate(pump);
    };
    pump();
  });

describe("a streaming client that stops reading", () => {
  test("past the unread limit its turn is cancelled and its connection cut, freeing the slot", async () => {
    const sdk = createMockSDK({ pluginName: "webui", respond: endless });
    server = await serveRoutes([openaiRoutes], sdk, TEST_LIMITS);
    await stalledCompletion(server.url);
    await waitFor(() => sdk.inputs.length === 1, "the turn to start");
    const signal = sdk.inputs[0].opts?.signal;
    await waitFor(() => signal?.aborted, "the turn to be cancelled", { timeoutMs: 15_000 });
    assert.match(String((signal?.reason as Error | undefined)?.message), /stopped reading/);
    const open = server;
    await waitFor(async () => (await open.connections()) === 0, "the server to close the connection");
    await waitFor(() => watched() === 0, "the router to let go of the request");
  });

  test("a client that disconnects mid-stream cancels the turn and leaves nothing watched", async () => {
    const sdk = createMockSDK({ pluginName: "webui", respond: endless });
    server = await serveRoutes([openaiRoutes], sdk, TEST_LIMITS);
    const abort = new AbortController();
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ stream: true, messages: [{ role: "user", content: "go" }] }),
      signal: abort.signal,
    });
    const reader = res.body?.getReader();
    await reader?.read();
    assert.equal(watched(), 1);
    abort.abort();
    await reader?.closed.catch(() => {});
    const signal = sdk.inputs[0].opts?.signal;
    await waitFor(() => signal?.aborted, "the turn to be cancelled");
    await waitFor(() => watched() === 0, "the router to let go of the request");
  });

  test("one that never reads the end of a finished answer is cut after two heartbeat intervals", async () => {
    // 6 MiB: more than loopback buffers take, less than the unread limit once they are full.
    const finite: MockResponder = async (input, sdk) => {
      const piece = "y".repeat(256 * 1024);
      for (let i = 0; i < 24; i += 1) {
        sdk.emit("content_delta", { requestId: input.requestId, content: piece });
        await new Promise((resolve) => setImmediate(resolve));
      }
      return piece.repeat(24);
    };
    const sdk = createMockSDK({ pluginName: "webui", respond: finite });
    server = await serveRoutes([openaiRoutes], sdk, { ...TEST_LIMITS, sseHeartbeatMs: 100 });
    await stalledCompletion(server.url);
    await waitFor(() => sdk.inputs.length === 1, "the turn to start");
    await sdk.inputs[0].reply;
    const open = server;
    await waitFor(async () => (await open.connections()) === 0, "the server to close the connection");
    assert.equal(watched(), 0);
  });
});
