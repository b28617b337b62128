/**
 * Chat, the event stream, uploads and the memory routes inside a real daemon (kernel, memory, auth, the
 * webui server) with a fake LLM over real HTTP: what a browser does, end to end — a chat's events on SSE,
 * replay after a reconnect, a stalled SSE client that must not hold up a chat, a Chinese fact found again
 * through recall and search, and history that forgets what memory forgot.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type SseFrame, SseReader, stalledSseClient } from "../../../test/fixtures/sse-reader.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { startWebDaemon, type WebDaemon } from "../../../test/fixtures/webui.js";

let web: WebDaemon;
const readers: SseReader[] = [];

before(async () => {
  web = await startWebDaemon({ webuiOnly: true, limits: { sseQueue: 8 } });
});

after(async () => {
  for (const r of readers) r.close();
  await web?.stop();
});

async function events(headers: Record<string, string> = {}, query = ""): Promise<SseReader> {
  const reader = await SseReader.open(`${web.base}/api/v1/chat/events${query}`, {
    "X-API-Key": web.apiKey,
    ...headers,
  });
  readers.push(reader);
  assert.equal(reader.status, 200, reader.errorBody);
  return reader;
}

async function chat(message: string, extra: Record<string, unknown> = {}) {
  const res = await web.json("POST", "/api/v1/chat", { message, ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { requestId: string; response: string };
}

const payload = (f: SseFrame) => JSON.parse(f.data).payload as Record<string, unknown>;
const ofRequest = (requestId: string) => (f: SseFrame) => f.data !== "" && payload(f).requestId === requestId;

describe("chat and its events in a real daemon", () => {
  test("a chat's progress and reply reach an SSE client, deltas included", async () => {
    const reader = await events();
    web.llm.enqueue({ text: "你好，我在。Hello there!", pieceChars: 3 });
    const reply = await chat("你好");
    assert.equal(reply.response, "你好，我在。Hello there!");
    const output = await reader.next((f) => f.event === "agent_output" && ofRequest(reply.requestId)(f));
    assert.equal(payload(output).content, reply.response);
    assert.equal(payload(output).source, "webui");
    const mine = reader.events().filter(ofRequest(reply.requestId));
    const deltas = mine.filter((f) => f.event === "content_delta").map((f) => payload(f).content);
    assert.ok(deltas.length >= 3, "the reply was streamed in pieces");
    assert.equal(deltas.join(""), reply.response);
    assert.ok(mine.some((f) => f.event === "agent_llm_chain"));
    const ids = mine.map((f) => Number(f.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      "ids are the bus seq, in order",
    );
  });

  test("a reconnect with Last-Event-ID gets exactly what it missed, without the deltas", async () => {
    const first = await events();
    const a = await chat("first message");
    await first.next((f) => f.event === "agent_output" && ofRequest(a.requestId)(f));
    const lastId = first.events().at(-1)?.id as string;
    first.close();
    web.llm.enqueue({ text: "second reply", pieceChars: 2 });
    const b = await chat("second message");
    const again = await events({ "Last-Event-ID": lastId });
    const output = await again.next((f) => f.event === "agent_output" && ofRequest(b.requestId)(f));
    assert.equal(payload(output).content, "second reply");
    const replayed = again.events().filter((f) => f.id !== undefined);
    assert.ok(
      replayed.every((f) => Number(f.id) > Number(lastId)),
      "nothing before the id is sent again",
    );
    assert.ok(!replayed.some((f) => f.event === "content_delta"), "deltas are live only");
    assert.ok(!again.events().some((f) => f.event === "gap"));
    const ids = replayed.map((f) => f.id);
    assert.equal(new Set(ids).size, ids.length, "no event twice");
  });

  test("a stalled SSE client does not hold up a chat; its drops are counted", async () => {
    const runtime = async () => (await web.json("GET", "/api/v1/runtime")).body.sse;
    for (const r of readers.splice(0)) r.close();
    await waitFor(async () => (await runtime()).clients === 0, "earlier SSE clients gone");
    const stalled = await stalledSseClient(`${web.base}/api/v1/chat/events`, { "X-API-Key": web.apiKey });
    const reader = await events();
    await waitFor(async () => (await runtime()).clients === 2, "both SSE clients connected");
    const before = (await runtime()).dropped;
    // Big events, in batches the reading client takes, until the stalled one's socket and queue are full.
    const big = "长".repeat(60_000);
    let sent = 0;
    while ((await runtime()).dropped === before && sent < 2000) {
      for (let i = 0; i < 4; i += 1) web.daemon.agent.bus.publish("system", "test", { kind: "filler", big, n: sent++ });
      const seen = sent;
      await waitFor(() => reader.events().filter((f) => f.event === "system").length >= seen, "the reader to keep up");
    }
    assert.ok((await runtime()).dropped > before, "the stalled client's events are being dropped");
    web.llm.enqueue({ text: "still quick ".repeat(200), pieceChars: 4 });
    const started = performance.now();
    const reply = await chat("are you still quick?");
    const ms = performance.now() - started;
    assert.equal(reply.response, "still quick ".repeat(200));
    assert.ok(ms < 3000, `the chat took ${ms.toFixed(0)} ms`);
    await reader.next((f) => f.event === "agent_output" && ofRequest(reply.requestId)(f));
    const stats = await runtime();
    assert.ok(stats.dropped > before + 100, "the chat's many deltas to the stalled client were dropped");
    stalled.destroy();
    await waitFor(async () => (await runtime()).clients === 1, "the stalled client released when it goes");
  });
});

describe("memory through the API in a real daemon", () => {
  test("a Chinese fact told in chat is found by search, and one committed is found by recall", async () => {
    await chat("我的猫叫小花，它今年三岁了。");
    await waitFor(
      async () => {
        const res = await web.json("GET", `/api/v1/memory/search?q=${encodeURIComponent("小花")}`);
        return res.body.items?.some((i: { text: string }) => i.text.includes("我的猫叫小花"));
      },
      "search to find the chat",
      { timeoutMs: 10_000 },
    );
    const commit = await web.json("POST", "/api/v1/memory", {
      triples: [{ subject: "小花", relation: "是", object: "橘猫" }],
      sentence: "小花是一只橘猫",
    });
    assert.equal(commit.status, 200, JSON.stringify(commit.body));
    assert.equal(commit.body.added, 1);
    const recall = await web.json("GET", `/api/v1/memory?q=${encodeURIComponent("小花")}`);
    assert.ok(
      recall.body.relations.some(
        (r: { subject: string; object: string }) => r.subject === "小花" && r.object === "橘猫",
      ),
      JSON.stringify(recall.body),
    );
    const context = await web.json("GET", `/api/v1/memory/context?q=${encodeURIComponent("小花几岁了？")}`);
    assert.equal(context.status, 200);
    const text = context.body.sections.map((s: { text: string }) => s.text).join("\n");
    assert.ok(text.includes("小花"), "what would be injected mentions the fact");
    const graph = await web.json("GET", "/api/v1/memory/graph?limit=10");
    assert.ok(graph.body.nodes.some((n: { name: string }) => n.name === "小花"));
    const timeline = await web.json("GET", "/api/v1/memory/timeline");
    assert.ok(timeline.body.events.some((e: { input: string }) => e.input.includes("我的猫叫小花")));
  });

  test("chat history is read from memory: what forget removed is gone from it", async () => {
    const secret = "my locker code is 4471-zebra";
    await chat(secret, { device_id: "phone" });
    const has = async () => {
      const res = await web.json("GET", "/api/v1/chat/history?limit=50");
      assert.equal(res.status, 200);
      return res.body.items.some((i: { input: string }) => i.input.includes("4471-zebra"));
    };
    assert.ok(await has(), "the device's message is in the webui history");
    const preview = await web.json("DELETE", "/api/v1/memory", { query: "4471-zebra" });
    assert.equal(preview.body.confirmed, false);
    assert.ok(await has(), "a preview removes nothing");
    const forgot = await web.json("DELETE", "/api/v1/memory", { query: "4471-zebra", confirm: true });
    assert.equal(forgot.body.confirmed, true);
    assert.ok(forgot.body.removed.context > 0, JSON.stringify(forgot.body));
    assert.equal(await has(), false);
  });

  test("a missing document is 404; documents list", async () => {
    assert.equal((await web.json("GET", "/api/v1/memory/docs/no-such-doc")).status, 404);
    const list = await web.json("GET", "/api/v1/memory/docs?limit=5");
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(list.body.items));
  });
});

describe("uploads in a real daemon", () => {
  test("an upload lands in <data>/workspace/uploads and its note reaches the LLM with the message", async () => {
    const form = new FormData();
    form.set("file", new Blob(["温度,湿度\n21,40\n"], { type: "text/csv" }), "读数.csv");
    form.set("message", "总结一下这个文件");
    web.llm.enqueue({ text: "温度 21 度。" });
    const res = await web.fetch("/api/v1/chat/file", { method: "POST", body: form });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { file: { name: string; url: string }; reply: { response: string } };
    assert.equal(body.file.name, "读数.csv");
    assert.equal(body.reply.response, "温度 21 度。");
    const stored = join(web.daemon.paths.root, "workspace", "uploads", "读数.csv");
    assert.ok(existsSync(stored));
    assert.equal(readFileSync(stored, "utf8"), "温度,湿度\n21,40\n");
    const sentToLlm = JSON.stringify(web.llm.requests.at(-1)?.body.messages);
    assert.ok(sentToLlm.includes("[attached file: uploads/读数.csv ("), sentToLlm.slice(-400));
    const back = await web.fetch(body.file.url);
    assert.equal(await back.text(), "温度,湿度\n21,40\n");
    assert.match(back.headers.get("content-disposition") ?? "", /^attachment/);
    const anonymous = await fetch(`${web.base}${body.file.url}`);
    assert.equal(anonymous.status, 401, "uploads need credentials too");
  });
});
