/** The chat routes over real HTTP against the mock SDK: replies, limits, de-duplication, timeouts, stops. */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { type InputReply, SdkError } from "@homeagent/sdk";
import { createMockSDK, type MockResponder, type MockSDK } from "@homeagent/sdk/test";
import { waitFor } from "../../../../test/fixtures/wait.js";
import { type RoutesServer, serveRoutes, TEST_LIMITS } from "../../../../test/fixtures/webui-routes.js";
import { chatRunner } from "../chat-runner.js";
import type { WebDeps, WebLimits } from "../context.js";
import { Dedup } from "../dedup.js";
import { chatRoutes } from "./chat.js";

let server: RoutesServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(
  respond?: MockResponder,
  limits: Partial<WebLimits> = {},
  extra: Parameters<typeof createMockSDK>[0] = {},
  dashboards = 0,
): Promise<{ sdk: MockSDK; url: string }> {
  const sdk = createMockSDK({ pluginName: "webui", respond, ...extra });
  const stats = { clients: dashboards, dashboards, maxClients: 8, sent: 0, dropped: 0, replayed: 0, ring: 0 };
  server = await serveRoutes([chatRoutes], sdk, { ...TEST_LIMITS, ...limits }, () => stats);
  return { sdk, url: server.url };
}

function post(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    ...init,
  });
}

// biome-ignore lint/suspicious/noExplicitAny: tests read whatever shape the route answers
const read = async (res: Response): Promise<any> => res.json();

/** A responder that answers only when the test says so (or says it was cancelled when its input is). */
function gated() {
  const gates: Array<(reply: string | Partial<InputReply>) => void> = [];
  const respond: MockResponder = (input) =>
    new Promise((resolve) => {
      gates.push(resolve);
      const signal = input.opts?.signal;
      signal?.addEventListener("abort", () => resolve({ error: (signal.reason as Error).message }));
    });
  return { gates, respond };
}

describe("POST /api/v1/chat", () => {
  it("injects the message on source and channel webui and answers with the reply", async () => {
    const { sdk, url } = await start(() => ({ content: "你好！", reasoningContent: "think" }));
    const res = await post(`${url}/api/v1/chat`, { message: "你好" });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.deepEqual(body, { requestId: "req-1", response: "你好！", reasoningContent: "think" });
    assert.equal(sdk.inputs[0].source, "webui");
    assert.equal(sdk.inputs[0].channel, "webui");
    assert.equal(sdk.inputs[0].sync, true);
    await post(`${url}/api/v1/chat`, { message: "hi", device_id: "phone-1" });
    assert.equal(sdk.inputs[1].source, "webui/phone-1");
  });

  it("refuses bad input with the field's name", async () => {
    const { sdk, url } = await start();
    const cases: Array<[unknown, number, RegExp]> = [
      [{}, 400, /message/],
      [{ message: "  " }, 400, /message/],
      [{ message: 5 }, 400, /message/],
      [{ message: "x".repeat(64 * 1024 + 1) }, 413, /message/],
      [{ message: "hi", device_id: "../etc" }, 400, /device_id/],
      [{ message: "hi", client_msg_id: "x".repeat(65) }, 400, /client_msg_id/],
      [[1, 2], 400, /object/],
    ];
    for (const [body, status, text] of cases) {
      const res = await post(`${url}/api/v1/chat`, body);
      assert.equal(res.status, status, JSON.stringify(body).slice(0, 80));
      assert.match((await read(res)).error.message, text);
    }
    const notJson = await fetch(`${url}/api/v1/chat`, { method: "POST", body: "message=hi" });
    assert.equal(notJson.status, 415);
    assert.equal(sdk.inputs.length, 0);
  });

  it("answers a repeated client_msg_id once: joining the flight, then from the cache", async () => {
    const { gates, respond } = gated();
    const { sdk, url } = await start(respond);
    const first = post(`${url}/api/v1/chat`, { message: "ping", client_msg_id: "m-1" });
    await waitFor(() => gates.length === 1, "the first message to reach the agent");
    const second = post(`${url}/api/v1/chat`, { message: "ping", client_msg_id: "m-1" });
    // The second request must have joined before the reply comes.
    await waitFor(() => sdk.inputs.length === 1, "still one input");
    gates[0]("pong");
    const [a, b] = await Promise.all([first, second]);
    assert.deepEqual(await a.json(), { requestId: "req-1", response: "pong" });
    assert.deepEqual(await b.json(), { requestId: "req-1", response: "pong", deduplicated: true });
    const third = await post(`${url}/api/v1/chat`, { message: "ping", client_msg_id: "m-1" });
    assert.deepEqual(await third.json(), { requestId: "req-1", response: "pong", deduplicated: true });
    assert.equal(sdk.inputs.length, 1);
    const conflict = await post(`${url}/api/v1/chat`, { message: "other", client_msg_id: "m-1" });
    assert.equal(conflict.status, 409);
    assert.equal((await read(conflict)).error.code, "client_msg_id_conflict");
    // Ids are per device: the same id from another device is another message.
    const tablet = post(`${url}/api/v1/chat`, { message: "ping", client_msg_id: "m-1", device_id: "tablet" });
    await waitFor(() => gates.length === 2, "the tablet's message to reach the agent as a message of its own");
    gates[1]("pong too");
    assert.equal((await read(await tablet)).deduplicated, undefined);
  });

  it("answers a failed reply 502 with the kernel's reason, and a retry under the same id runs again", async () => {
    let calls = 0;
    const { sdk, url } = await start(() => (++calls === 1 ? { error: "all 1 providers failed: 500" } : "ok now"));
    const res = await post(`${url}/api/v1/chat`, { message: "hi", client_msg_id: "r-1" });
    assert.equal(res.status, 502);
    assert.deepEqual((await read(res)).error, { code: "chat_failed", message: "all 1 providers failed: 500" });
    const retry = await post(`${url}/api/v1/chat`, { message: "hi", client_msg_id: "r-1" });
    assert.equal(retry.status, 200);
    assert.equal((await read(retry)).response, "ok now");
    assert.equal(sdk.inputs.length, 2);
  });

  it("answers 504 past the chat timeout and stops the turn", async () => {
    const { respond } = gated();
    const { sdk, url } = await start(respond, { chatTimeoutMs: 100 });
    const res = await post(`${url}/api/v1/chat`, { message: "slow" });
    assert.equal(res.status, 504);
    assert.equal((await read(res)).error.code, "chat_timeout");
    assert.equal(sdk.inputs[0].opts?.signal?.aborted, true, "the kernel was told to stop");
  });

  it("answers 503 with Retry-After when the kernel's queue is full", async () => {
    const { url } = await start(() => {
      throw new SdkError({ code: "queue_full", message: "the input queue is full (256)" });
    });
    const res = await post(`${url}/api/v1/chat`, { message: "hi" });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("retry-after"), "5");
    assert.equal((await read(res)).error.code, "queue_full");
  });

  it("cancels the turn when the client disconnects, but only once every joined client has", async () => {
    const { gates, respond } = gated();
    const { sdk, url } = await start(respond);
    const one = new AbortController();
    const two = new AbortController();
    const a = post(`${url}/api/v1/chat`, { message: "m", client_msg_id: "d" }, { signal: one.signal }).catch(
      () => null,
    );
    await waitFor(() => gates.length === 1, "the message to reach the agent");
    const b = post(`${url}/api/v1/chat`, { message: "m", client_msg_id: "d" }, { signal: two.signal }).catch(
      () => null,
    );
    const runner = chatRunner({ sdk } as unknown as WebDeps);
    await waitFor(() => runner.load().waiting === 2, "the second request to join");
    one.abort();
    await a;
    await waitFor(() => runner.load().waiting === 1, "the server to see the first client go");
    assert.equal(sdk.inputs.length, 1);
    assert.equal(sdk.inputs[0].opts?.signal?.aborted, false, "the turn goes on for the second client");
    two.abort();
    await b;
    await waitFor(() => sdk.inputs[0].opts?.signal?.aborted === true, "the turn to be cancelled");
  });
});

describe("POST /api/v1/chat/interrupt", () => {
  it("hands a message to the agent as an interrupt", async () => {
    const { sdk, url } = await start();
    const res = await post(`${url}/api/v1/chat/interrupt`, { message: "停一下", device_id: "pc" });
    assert.deepEqual(await res.json(), { interrupted: true });
    assert.deepEqual(sdk.interrupts, [{ source: "webui/pc", channel: "webui", text: "停一下" }]);
  });

  it("refuses a message that is not text or over its limit; a null message is no message", async () => {
    const { sdk, url } = await start();
    for (const [body, status, code] of [
      [{ message: 5 }, 400, "invalid_argument"],
      [{ message: ["stop"] }, 400, "invalid_argument"],
      [{ message: "x".repeat(64 * 1024 + 1) }, 413, "message_too_large"],
      [{ message: "stop", device_id: "../pc" }, 400, "invalid_argument"],
    ] as const) {
      const res = await post(`${url}/api/v1/chat/interrupt`, body);
      assert.equal(res.status, status, JSON.stringify(body).slice(0, 60));
      assert.equal((await read(res)).error.code, code);
    }
    assert.deepEqual(await read(await post(`${url}/api/v1/chat/interrupt`, { message: null })), { stopped: 0 });
    const notJson = await fetch(`${url}/api/v1/chat/interrupt`, { method: "POST", body: "message=stop" });
    assert.equal(notJson.status, 415);
    assert.deepEqual(sdk.interrupts, []);
  });

  it("without a message stops the replies in flight (409 chat_stopped for their requests)", async () => {
    const { gates, respond } = gated();
    const { url } = await start(respond);
    const chat = post(`${url}/api/v1/chat`, { message: "long story" });
    await waitFor(() => gates.length === 1, "the message to reach the agent");
    const res = await fetch(`${url}/api/v1/chat/interrupt`, { method: "POST" });
    assert.deepEqual(await res.json(), { stopped: 1 });
    const stopped = await chat;
    assert.equal(stopped.status, 409);
    assert.equal((await read(stopped)).error.code, "chat_stopped");
    assert.deepEqual(await read(await post(`${url}/api/v1/chat/interrupt`, {})), { stopped: 0 });
  });
});

describe("GET /api/v1/chat/history", () => {
  it("reads the webui conversation from memory, paged", async () => {
    const asked: unknown[] = [];
    const { url } = await start(
      undefined,
      {},
      {
        memory: {
          history: async (opts) => {
            asked.push(opts);
            return { items: [], more: false };
          },
        },
      },
    );
    const res = await fetch(`${url}/api/v1/chat/history?before=1700000000000&limit=20`);
    assert.deepEqual(await res.json(), { items: [], more: false });
    assert.deepEqual(asked, [{ source: "webui", before: 1700000000000, limit: 20 }]);
    for (const query of ["limit=0", "limit=201", "limit=abc", "before=-1"]) {
      const bad = await fetch(`${url}/api/v1/chat/history?${query}`);
      assert.equal(bad.status, 400, query);
      assert.match((await read(bad)).error.message, new RegExp(query.split("=")[0]));
    }
  });

  it("answers 503 while memory is not running", async () => {
    const { url } = await start();
    const res = await fetch(`${url}/api/v1/chat/history`);
    assert.equal(res.status, 503);
    assert.equal((await read(res)).error.code, "memory_unavailable");
  });
});

describe("the webui output channel", () => {
  it("publishes what the agent sends as agent_output with sent: true and its kind", async () => {
    const { sdk } = await start(undefined, {}, {}, 1);
    const channel = sdk.channels.get("webui");
    assert.ok(channel);
    const msg = { payload: "提醒：喝水", meta: { kind: "reminder" }, type: "text", requestId: "req-9" };
    assert.equal(await channel.handler(msg), "shown in 1 open web dashboard");
    assert.deepEqual(sdk.published, [
      {
        type: "agent_output",
        payload: {
          requestId: "req-9",
          source: "webui",
          channel: "webui",
          content: "提醒：喝水",
          sent: true,
          kind: "reminder",
        },
      },
    ]);
  });

  it("with no dashboard open it reports no_client, so the message waits in the inbox", async () => {
    const { sdk } = await start();
    const channel = sdk.channels.get("webui");
    assert.ok(channel);
    await assert.rejects(
      async () => channel.handler({ payload: "x", meta: {}, type: "text", requestId: "" }),
      (err: unknown) => (err as { code?: string }).code === "no_client",
    );
    assert.deepEqual(await sdk.send("webui", "⏰ later", { kind: "reminder" }), {
      delivered: false,
      kept: true,
      channel: "webui",
    });
    assert.deepEqual(
      sdk.inbox.take("webui").map((m) => m.text),
      ["⏰ later"],
    );
    assert.deepEqual(
      sdk.published.map((e) => e.payload.kept),
      [true, true],
      "published for a dashboard's reconnect too, marked as kept",
    );
  });

  it("does not publish a turn's own reply again: the kernel's agent_output carries it", async () => {
    const { sdk } = await start(undefined, {}, {}, 1);
    const channel = sdk.channels.get("webui");
    assert.ok(channel);
    await channel.handler({ payload: "done", meta: {}, type: "text", requestId: "req-10", reply: true });
    assert.deepEqual(sdk.published, []);
  });
});

describe("Dedup", () => {
  it("holds at most its bound, the oldest going first", () => {
    const dedup = new Dedup<number>(256);
    for (let i = 0; i < 300; i += 1) dedup.set(`k${i}`, "m", i);
    assert.equal(dedup.size, 256);
    assert.equal(dedup.get("k0", "m"), undefined);
    assert.equal(dedup.get("k299", "m"), 299);
  });

  it("never evicts a value still in flight: the oldest settled ones go instead", () => {
    const running = new Set([0, 5]);
    const dedup = new Dedup<number>(3, (v) => running.has(v));
    for (let i = 0; i < 10; i += 1) dedup.set(`k${i}`, "m", i);
    assert.deepEqual(
      [0, 5, 9].map((i) => dedup.get(`k${i}`, "m")),
      [0, 5, 9],
    );
    assert.equal(dedup.size, 3);
  });
});

describe("client_msg_id under a flood of other ids", () => {
  it("a retry of a message still running joins it, however many other ids came since", async () => {
    const { gates, respond } = gated();
    const { sdk, url } = await start((input, mock) => (input.text === "slow" ? respond(input, mock) : "quick"));
    const first = post(`${url}/api/v1/chat`, { message: "slow", client_msg_id: "keep" });
    await waitFor(() => gates.length === 1, "the slow message to reach the agent");
    for (let i = 0; i < 300; i += 1) {
      assert.equal((await post(`${url}/api/v1/chat`, { message: `m${i}`, client_msg_id: `flood-${i}` })).status, 200);
    }
    const retry = post(`${url}/api/v1/chat`, { message: "slow", client_msg_id: "keep" });
    const runner = chatRunner({ sdk } as unknown as WebDeps);
    await waitFor(() => runner.load().waiting === 2 || gates.length === 2, "the retry to join or start anew");
    assert.equal(gates.length, 1, "the retry joined the running message instead of starting it again");
    gates[0]("done");
    const [a, b] = await Promise.all([first, retry]);
    assert.equal((await read(a)).response, "done");
    assert.deepEqual(await read(b), { requestId: "req-1", response: "done", deduplicated: true });
    assert.equal(sdk.inputs.filter((i) => i.text === "slow").length, 1, "the agent answered it once");
  });
});
