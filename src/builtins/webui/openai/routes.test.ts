/**
 * The OpenAI routes against the mock SDK, served by @hono/node-server on 127.0.0.1 and driven by the
 * official `openai` client: request parsing, the stream's lines, errors, time limit, disconnect, and the
 * memory setting. The same routes inside a real daemon are tested in daemon.test.ts.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, describe, test } from "node:test";
import { type ErrorCode, type InputReply, SdkError } from "@homeagent/sdk";
import { createMockSDK, type MockSDK, type MockSDKOptions } from "@homeagent/sdk/test";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import OpenAI from "openai";
import { waitFor } from "../../../../test/fixtures/wait.js";
import type { WebEnv, WebLimits } from "../context.js";
import { openaiRoutes } from "./routes.js";

const LIMITS: WebLimits = {
  maxJsonBytes: 1024 * 1024,
  maxUploadBytes: 64 * 1024 * 1024,
  uploadQuotaBytes: 1024 * 1024 * 1024,
  maxSseClients: 64,
  sseQueue: 512,
  sseHeartbeatMs: 15_000,
  sseRetryMs: 3000,
  sseRing: 200,
  chatTimeoutMs: 300_000,
  maxPreAuthConnections: 256,
};

interface Served {
  base: string;
  sdk: MockSDK;
  client: OpenAI;
  close(): Promise<void>;
}

const open: Served[] = [];
after(async () => {
  await Promise.all(open.map((s) => s.close()));
});

async function serveOpenAI(opts: MockSDKOptions = {}, limits: Partial<WebLimits> = {}): Promise<Served> {
  const sdk = createMockSDK({ pluginName: "webui", ...opts });
  const app = new Hono<WebEnv>();
  const stop = openaiRoutes(app, {
    sdk,
    limits: { ...LIMITS, ...limits },
    startedAt: Date.now(),
    sseStats: () => ({ clients: 0, dashboards: 0, maxClients: 64, sent: 0, dropped: 0, replayed: 0, ring: 0 }),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const served: Served = {
    base,
    sdk,
    client: new OpenAI({ baseURL: `${base}/v1`, apiKey: "unused", maxRetries: 0 }),
    close: async () => {
      await stop?.();
      (server as import("node:http").Server).closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  open.push(served);
  return served;
}

/** A responder that streams `parts` as content deltas (with reasoning first), then replies. */
function streaming(parts: string[], reply: Partial<InputReply> = {}): MockSDKOptions["respond"] {
  return (input, sdk) => {
    sdk.emit("reasoning_delta", { requestId: input.requestId, content: "思考" });
    for (const content of parts) sdk.emit("content_delta", { requestId: input.requestId, content });
    return { content: parts.join(""), usage: usage(12, 5), ...reply };
  };
}

function usage(prompt: number, completion: number) {
  return {
    prompt,
    completion,
    total: prompt + completion,
    cacheRead: 0,
    cacheMiss: 0,
    cacheReported: false,
    reasoningTokens: 0,
  };
}

async function post(base: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("POST /v1/chat/completions (mock SDK)", () => {
  test("a non-streaming request gets a chat.completion; history and memory options reach the kernel", async () => {
    const { client, sdk } = await serveOpenAI({ respond: () => ({ content: "Hi Ann", usage: usage(30, 3) }) });
    const done = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "developer", content: "Answer in English." },
        { role: "user", content: "My name is Ann." },
        { role: "assistant", content: "Hello Ann." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is" },
            { type: "text", text: "my name?" },
          ],
        },
      ],
    });
    assert.equal(done.object, "chat.completion");
    assert.equal(done.model, "homeagent");
    assert.match(done.id, /^chatcmpl-/);
    assert.equal(done.choices[0].message.content, "Hi Ann");
    assert.equal(done.choices[0].finish_reason, "stop");
    assert.deepEqual(done.usage, { prompt_tokens: 30, completion_tokens: 3, total_tokens: 33 });
    const input = sdk.inputs[0];
    assert.equal(input.source, "openai");
    assert.equal(input.channel, "http");
    assert.equal(input.text, "What is\nmy name?");
    assert.deepEqual(input.opts?.history, [
      { role: "system", content: "Be brief." },
      { role: "system", content: "Answer in English." },
      { role: "user", content: "My name is Ann." },
      { role: "assistant", content: "Hello Ann." },
    ]);
    assert.equal(input.opts?.transient, true);
    assert.equal(input.opts?.noMemory, true);
  });

  test("a single user message still gets an empty history (never the daemon's own timeline)", async () => {
    const { client, sdk } = await serveOpenAI();
    await client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "hello" }] });
    assert.deepEqual(sdk.inputs[0].opts?.history, []);
  });

  test('with plugin.webui.openai_memory = "true" the request is recorded (read at each request)', async () => {
    const { client, sdk } = await serveOpenAI();
    sdk.settings.set("openai_memory", "true");
    await client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "remember me" }] });
    assert.equal(sdk.inputs[0].opts?.transient, undefined);
    assert.equal(sdk.inputs[0].opts?.noMemory, undefined);
    sdk.settings.set("openai_memory", "false");
    await client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "forget me" }] });
    assert.equal(sdk.inputs[1].opts?.transient, true);
  });

  test("a stream sends the role, each delta, finish, usage with no choices, then [DONE]", async () => {
    const { base, sdk } = await serveOpenAI({ respond: streaming(["你好", "，", "world"]) });
    const res = await post(base, { model: "m", stream: true, messages: [{ role: "user", content: "hi" }] });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.equal(res.headers.get("x-homeagent-request-id"), sdk.inputs[0].requestId);
    const lines = res.text.split("\n\n").filter(Boolean);
    assert.equal(lines.at(-1), "data: [DONE]");
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l.replace(/^data: /, "")));
    assert.ok(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "homeagent"));
    assert.equal(new Set(chunks.map((c) => c.id)).size, 1, "one id for the whole stream");
    assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "" });
    assert.deepEqual(chunks[1].choices[0].delta, { reasoning_content: "思考" });
    assert.deepEqual(
      chunks.slice(2, 5).map((c) => c.choices[0].delta.content),
      ["你好", "，", "world"],
    );
    assert.equal(chunks[5].choices[0].finish_reason, "stop");
    assert.deepEqual(chunks[6].choices, []);
    assert.deepEqual(chunks[6].usage, { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
    assert.equal(chunks.length, 7);
  });

  test("the official client reads the stream: text, and usage in the last chunk", async () => {
    const { client } = await serveOpenAI({ respond: streaming(["Hello", ", ", "there"]) });
    const stream = await client.chat.completions.create({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    let text = "";
    let last: OpenAI.Chat.Completions.ChatCompletionChunk | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      last = chunk;
    }
    assert.equal(text, "Hello, there");
    assert.equal(last?.usage?.total_tokens, 17);
  });

  test("deltas of other requests never reach this stream", async () => {
    const { client } = await serveOpenAI({
      respond: (input, sdk) => {
        sdk.emit("content_delta", { requestId: "someone-else", content: "NOT MINE" });
        sdk.emit("content_delta", { requestId: input.requestId, content: "mine" });
        return "mine";
      },
    });
    const stream = await client.chat.completions.create({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    assert.equal(text, "mine");
  });

  test("a reply a stage rewrote ends the stream after a blank line; a tool round's text is kept", async () => {
    const { client } = await serveOpenAI({
      respond: (input, sdk) => {
        const requestId = input.requestId;
        sdk.emit("content_delta", { requestId, content: "Let me look." });
        sdk.emit("agent_llm_chain", { requestId, content: "Let me look.", toolCalls: [{ id: "1", name: "t" }] });
        sdk.emit("content_delta", { requestId, content: "It is 1234." });
        return "It is ****.";
      },
    });
    const stream = await client.chat.completions.create({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    assert.equal(text, "Let me look.\n\nIt is 1234.\n\nIt is ****.");
  });

  test("a failed turn is 502 without streaming, and an error line before [DONE] when streaming", async () => {
    const { client, base } = await serveOpenAI({
      respond: () => ({ content: "LLM unreachable", error: "all LLM sources failed" }),
    });
    await assert.rejects(
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      (err: unknown) => {
        assert.ok(err instanceof OpenAI.InternalServerError);
        assert.equal(err.status, 502);
        assert.match(err.message, /all LLM sources failed/);
        return true;
      },
    );
    const res = await post(base, { stream: true, messages: [{ role: "user", content: "hi" }] });
    const lines = res.text.split("\n\n").filter(Boolean);
    assert.equal(lines.at(-1), "data: [DONE]");
    const error = JSON.parse(lines.at(-2)!.replace(/^data: /, ""));
    assert.equal(error.error.type, "server_error");
    assert.equal(error.error.code, "turn_failed");
    assert.match(error.error.message, /all LLM sources failed/);
  });

  test("a non-streaming turn over limits.chatTimeoutMs is 504 and is cancelled", async () => {
    const { base, sdk } = await serveOpenAI(
      {
        respond: (input) => new Promise((resolve) => input.opts?.signal?.addEventListener("abort", () => resolve("x"))),
      },
      { chatTimeoutMs: 50 },
    );
    const res = await post(base, { messages: [{ role: "user", content: "slow" }] });
    assert.equal(res.status, 504);
    const body = JSON.parse(res.text);
    assert.equal(body.error.code, "timeout");
    assert.equal(body.error.type, "server_error");
    assert.match(body.error.message, /within 50 ms/);
    assert.equal(sdk.inputs[0].opts?.signal?.aborted, true);
  });

  test("a streaming turn over the time limit ends with a timeout error line", async () => {
    const { base } = await serveOpenAI(
      {
        respond: (input) => new Promise((resolve) => input.opts?.signal?.addEventListener("abort", () => resolve("x"))),
      },
      { chatTimeoutMs: 50 },
    );
    const res = await post(base, { stream: true, messages: [{ role: "user", content: "slow" }] });
    assert.match(res.text, /"code":"timeout"/);
    assert.ok(res.text.endsWith("data: [DONE]\n\n"));
  });

  for (const stream of [false, true]) {
    test(`a client that disconnects cancels the turn (stream: ${stream})`, async () => {
      let started = false;
      const { base, sdk } = await serveOpenAI({
        respond: (input) => {
          started = true;
          return new Promise((resolve) => input.opts?.signal?.addEventListener("abort", () => resolve("x")));
        },
      });
      const abort = new AbortController();
      const res = fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ stream, messages: [{ role: "user", content: "wait" }] }),
        signal: abort.signal,
      });
      if (stream) await (await res).body?.getReader().read();
      else await waitFor(() => started, "the turn to start");
      abort.abort();
      await res
        .then(
          (r) => r.text(),
          () => "",
        )
        .catch(() => "");
      const signal = sdk.inputs[0].opts?.signal;
      await waitFor(() => signal?.aborted, "the turn's signal to abort");
      assert.match(String((signal?.reason as Error | undefined)?.message), /disconnected/);
    });
  }

  test("kernel refusals before queueing keep their status: bad history 400, full queue 503", async () => {
    // The kernel refuses such an input without queueing it: onQueued is never called.
    const refusing = async (code: ErrorCode | "weather_down") => {
      const served = await serveOpenAI();
      served.sdk.injectInputSync = () =>
        Promise.reject(new SdkError({ code: code as ErrorCode, message: `refused: ${code}` }));
      return served;
    };
    const bad = await refusing("invalid_history");
    const r1 = await post(bad.base, { stream: true, messages: [{ role: "user", content: "x" }] });
    assert.equal(r1.status, 400);
    assert.equal(JSON.parse(r1.text).error.code, "invalid_history");
    assert.equal(JSON.parse(r1.text).error.param, "messages");
    const full = await refusing("queue_full");
    const r2 = await post(full.base, { messages: [{ role: "user", content: "x" }] });
    assert.equal(r2.status, 503);
    assert.equal(r2.headers.get("retry-after"), "5");
    assert.equal(JSON.parse(r2.text).error.type, "server_error");
    const other = await refusing("memory_store_open");
    const r3 = await post(other.base, { messages: [{ role: "user", content: "x" }] });
    assert.equal(r3.status, 500);
    assert.deepEqual(JSON.parse(r3.text).error, {
      message: "internal error; see the daemon log",
      type: "server_error",
      param: null,
      code: "internal_error",
    });
    // A code from outside the SDK's list (a JavaScript plugin may throw any string) is a 500 too, never a 200.
    const unknown = await refusing("weather_down");
    const r4 = await post(unknown.base, { messages: [{ role: "user", content: "x" }] });
    assert.equal(r4.status, 500);
    assert.equal(JSON.parse(r4.text).error.code, "internal_error");
  });
});

describe("POST /v1/chat/completions refusals", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp, string]> = [
    ["client tools", { tools: [{ type: "function", function: { name: "f" } }] }, /runs its own tools/, "tools"],
    ["legacy functions", { functions: [{ name: "f" }] }, /runs its own tools/, "functions"],
    [
      "a tool message",
      { extra: { role: "tool", content: "r", tool_call_id: "1" } },
      /runs its own tools/,
      "messages[0].role",
    ],
    [
      "an image part",
      { last: [{ type: "image_url", image_url: { url: "x" } }] },
      /only text parts/,
      "messages[0].content[0]",
    ],
    [
      "a last assistant message",
      { extra: { role: "assistant", content: "x" }, after: true },
      /last message must be the user's/,
      "messages",
    ],
    ["an unknown role", { extra: { role: "robot", content: "x" } }, /role must be/, "messages[0].role"],
    ["a role that is not text", { extra: { role: 5, content: "x" } }, /role must be/, "messages[0].role"],
    ["a user message without content", { last: null }, /content must be a string/, "messages[0].content"],
    ["n > 1", { n: 2 }, /n must be 1/, "n"],
    ["stream not boolean", { stream: "yes" }, /stream must be true or false/, "stream"],
    [
      "stream_options not an object",
      { stream: true, stream_options: "all" },
      /stream_options must be/,
      "stream_options",
    ],
    [
      "stream_options.include_usage not boolean",
      { stream: true, stream_options: { include_usage: "yes" } },
      /include_usage must be true or false/,
      "stream_options.include_usage",
    ],
  ];
  for (const [what, spec, message, param] of cases) {
    test(`${what} → 400 invalid_request_error`, async () => {
      const { client, sdk } = await serveOpenAI();
      const { extra, last, after: extraAfter, ...fields } = spec;
      const user = { role: "user", content: "last" in spec ? last : "hi" };
      const messages = extra ? (extraAfter ? [user, extra] : [extra, user]) : [user];
      await assert.rejects(
        // biome-ignore lint/suspicious/noExplicitAny: the request is wrong on purpose
        client.chat.completions.create({ model: "m", messages, ...fields } as any),
        (err: unknown) => {
          assert.ok(err instanceof OpenAI.BadRequestError, `got ${String(err)}`);
          assert.match(err.message, message);
          assert.equal(err.type, "invalid_request_error");
          assert.equal(err.param, param);
          return true;
        },
      );
      assert.equal(sdk.inputs.length, 0, "nothing reached the kernel");
    });
  }

  test("more than 256 messages → 400", async () => {
    const { base } = await serveOpenAI();
    const messages = Array.from({ length: 257 }, () => ({ role: "user", content: "x" }));
    const res = await post(base, { messages });
    assert.equal(res.status, 400);
    assert.match(JSON.parse(res.text).error.message, /257 entries; at most 256/);
  });

  test("a body over limits.maxJsonBytes → 413, not JSON → 415, bad JSON → 400, all OpenAI-shaped", async () => {
    const { base } = await serveOpenAI({}, { maxJsonBytes: 1000 });
    const big = await post(base, { messages: [{ role: "user", content: "x".repeat(2000) }] });
    assert.equal(big.status, 413);
    assert.equal(JSON.parse(big.text).error.type, "invalid_request_error");
    const text = await post(base, "hi", { "content-type": "text/plain" });
    assert.equal(text.status, 415);
    const broken = await post(base, "{", {});
    assert.equal(broken.status, 400);
    assert.equal(JSON.parse(broken.text).error.code, "invalid_json");
  });
});

describe("GET /v1/models", () => {
  test("lists the one model, homeagent", async () => {
    const { client } = await serveOpenAI();
    const models = [];
    for await (const m of client.models.list()) models.push(m);
    assert.equal(models.length, 1);
    assert.equal(models[0].id, "homeagent");
    assert.equal(models[0].object, "model");
    assert.equal(models[0].owned_by, "homeagent");
    assert.equal(typeof models[0].created, "number");
  });
});
